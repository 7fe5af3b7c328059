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

    /// `parse` without the fast path for devicectl's own file lines: any valid JSON spelling.
    static func parseAnySpelling(_ line: ArraySlice<UInt8>) throws(ManifestLineError) -> ManifestLine {
        var kind: ArraySlice<UInt8>?
        var path: ArraySlice<UInt8>?
        var size: UInt64?
        var sha: ArraySlice<UInt8>?
        let flat = FlatJSON.parse(line) { key, value in
            switch value {
            case .string(let text):
                if key.elementsEqual(ManifestLine.kindKey) {
                    kind = text
                } else if key.elementsEqual(ManifestLine.pathKey) {
                    path = text
                } else if key.elementsEqual(ManifestLine.shaKey) {
                    sha = text
                }
            case .number(let number):
                if key.elementsEqual(ManifestLine.sizeKey) { size = number }
            case .other:
                break
            }
        }
        if flat, let kind, kind.elementsEqual(ManifestLine.fileKind) {
            guard let path else { throw ManifestLineError("a file line without a path") }
            let name = String(decoding: path, as: UTF8.self)
            guard let size else { throw ManifestLineError("file line for '\(name)' without a size") }
            guard let sha, let digest = Hex.decode(sha), digest.count == 32 else {
                throw ManifestLineError("file line for '\(name)' without a valid sha256")
            }
            return .file(path: Array(path), size: size, digest: digest)
        }
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
            case "file": throw ManifestLineError("malformed file line")
            default: return .unknown(kind)
            }
        } catch let error as ManifestLineError {
            throw error
        } catch {
            throw ManifestLineError("malformed \(kind) line")
        }
    }

    private static let kindKey = Array("kind".utf8), pathKey = Array("path".utf8), sizeKey = Array("size".utf8)
    private static let shaKey = Array("sha256".utf8), fileKind = Array("file".utf8)
}

/// Why a manifest line could not be parsed.
struct ManifestLineError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
