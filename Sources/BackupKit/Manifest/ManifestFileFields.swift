// ManifestFileFields: a file line in any JSON spelling, read by JSONDecoder field by field.

/// The fields of a `{"kind":"file",...}` line that is not in devicectl's own spelling (which
/// `ManifestLine.devicectlFileLine` reads without a decoder). A field that is missing or of another type is nil,
/// so the error names it; other keys are ignored.
struct ManifestFileFields: Decodable {
    let path: String?
    let size: UInt64?
    let sha256: String?

    private enum Keys: String, CodingKey {
        case path, size, sha256
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        path = try? container.decodeIfPresent(String.self, forKey: .path)
        size = try? container.decodeIfPresent(UInt64.self, forKey: .size)
        sha256 = try? container.decodeIfPresent(String.self, forKey: .sha256)
    }
}
