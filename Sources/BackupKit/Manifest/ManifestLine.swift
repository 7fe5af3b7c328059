// ManifestLine: one parsed line of `.devicectl-manifest.jsonl`.
import Foundation
import SystemKit

/// A manifest line.
enum ManifestLine {
    case header(Manifest.Header)
    case file(path: [UInt8], size: UInt64, digest: [UInt8])
    case members(Manifest.Members)
    case totals(Manifest.Totals)
    /// A kind this reader does not know (damage, or a newer format).
    case unknown(String)

    /// Parses `line` (without its newline). Throws a reason on malformed input.
    static func parse(_ line: ArraySlice<UInt8>) throws(ManifestLineError) -> ManifestLine {
        if let file = devicectlFileLine(line) { return file }
        return try parseAnySpelling(line)
    }

    /// `parse` without the fast path for devicectl's own file lines: any valid JSON spelling, read by
    /// JSONDecoder (the line is capped before it gets here: `ManifestCheck`).
    static func parseAnySpelling(_ line: ArraySlice<UInt8>) throws(ManifestLineError) -> ManifestLine {
        let data = Data(line)
        struct Kind: Decodable { let kind: String }
        let decoder = JSONDecoder()
        guard let kind = try? decoder.decode(Kind.self, from: data).kind else {
            throw ManifestLineError("not a JSON object with a \"kind\"")
        }
        do {
            switch kind {
            case "header": return .header(try decoder.decode(Manifest.Header.self, from: data))
            case "members": return .members(try decoder.decode(Manifest.Members.self, from: data))
            case "totals": return .totals(try decoder.decode(Manifest.Totals.self, from: data))
            case "file": return try fileLine(try decoder.decode(ManifestFileFields.self, from: data))
            default: return .unknown(kind)
            }
        } catch let error as ManifestLineError {
            throw error
        } catch {
            throw ManifestLineError("malformed \(kind) line")
        }
    }

    private static func fileLine(_ fields: ManifestFileFields) throws(ManifestLineError) -> ManifestLine {
        guard let path = fields.path else { throw ManifestLineError("a file line without a path") }
        guard let size = fields.size else { throw ManifestLineError("file line for '\(path)' without a size") }
        guard let sha = fields.sha256, let digest = Hex.decode(sha.utf8), digest.count == 32 else {
            throw ManifestLineError("file line for '\(path)' without a valid sha256")
        }
        return .file(path: Array(path.utf8), size: size, digest: digest)
    }
}
