// Manifest+NullEncoding: optional manifest fields are written as explicit `null` (the documented format),
// not omitted as synthesized Codable would do. Decoding stays synthesized (it accepts both).

private enum SourceKey: String, CodingKey { case udid }
private enum AppKey: String, CodingKey { case bundleId, name, groups, widget }

extension Manifest.Source {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: SourceKey.self)
        try container.encode(udid, forKey: .udid)
    }
}

extension Manifest.App {
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: AppKey.self)
        try container.encode(bundleId, forKey: .bundleId)
        try container.encode(name, forKey: .name)
        try container.encode(groups, forKey: .groups)
        try container.encode(widget, forKey: .widget)
    }
}
