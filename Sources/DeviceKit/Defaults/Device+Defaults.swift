// Device+Defaults: resolving a defaults domain to its plist, as iOS does.

extension Device {
    /// The suite for `domain`: an installed app's standard suite
    /// (`<data container>/Library/Preferences/<bundle id>.plist`) or an App Group's shared suite
    /// (`<group container>/Library/Preferences/<group id>.plist`).
    public func defaults(_ domain: String) throws -> DefaultsSuite {
        if let data = try container(.data, identifier: domain) {
            return DefaultsSuite(
                domain: domain, relativePath: "\(data.relativePath)/Library/Preferences/\(domain).plist", in: directory)
        }
        if let group = try container(.group, identifier: domain) {
            return DefaultsSuite(
                domain: domain, relativePath: "\(group.relativePath)/Library/Preferences/\(domain).plist", in: directory)
        }
        throw DeviceError.unknownDomain(domain)
    }
}
