// ManifestCheckTests: the manifest's grammar (a header, file lines, the totals, the members line, nothing after),
// enforced alike for devicectl's own file lines (read by the fast path) and any other spelling of them.
import Foundation
import Testing

@testable import BackupKit

@Suite struct ManifestCheckTests {
    static let digest = String(repeating: "ab", count: 32)

    static var header: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let value = Manifest.Header(
            tool: "devicectl test", created: "2026-11-29T12:00:00Z", source: Manifest.Source(udid: "UDID"), apps: [],
            groups: [], widgets: [])
        return String(decoding: try! encoder.encode(value), as: UTF8.self)
    }

    /// A file line as devicectl writes it (the fast path reads it).
    static func ownFile(_ path: String, _ size: Int) -> String {
        #"{"kind":"file","path":"\#(path)","size":\#(size),"sha256":"\#(digest)"}"#
    }

    /// The same line in another key order (only the general parser reads it).
    static func otherFile(_ path: String, _ size: Int) -> String {
        #"{"kind":"file","sha256":"\#(digest)","path":"\#(path)","size":\#(size)}"#
    }

    static func totals(files: Int, bytes: Int) -> String {
        #"{"kind":"totals","files":\#(files),"bytes":\#(bytes),"directories":0,"symlinks":0,"hardlinks":0,"excluded":{"files":0,"bytes":0,"byReason":{}}}"#
    }

    /// The lines joined, each with its newline, and a members line after them whose manifestSha256 covers them.
    static func withMembers(_ lines: [String]) throws -> [String] {
        let text = lines.map { $0 + "\n" }.joined()
        let sha = try SHA256Digest.hex(of: Array(text.utf8))
        return lines + [#"{"kind":"members","count":0,"sha256":"\#(digest)","manifestSha256":"\#(sha)"}"#]
    }

    /// Reads `lines` as list reads a manifest; the outcome, or the refusal's text.
    static func check(_ lines: [String]) throws -> Result<ManifestCheck.Outcome, RestoreError> {
        let check = try ManifestCheck()
        let text = Array(lines.map { $0 + "\n" }.joined().utf8)
        do {
            // Fed in small blocks, so lines also arrive split across blocks.
            for start in stride(from: 0, to: text.count, by: 7) {
                try text[start..<min(start + 7, text.count)].withUnsafeBytes { try check.feed($0) }
            }
            return .success(try check.finish())
        } catch let error as RestoreError {
            return .failure(error)
        }
    }

    @Test func fileLinesInEitherSpellingAreCountedAgainstTheTotals() throws {
        let lines = try Self.withMembers([
            Self.header, Self.ownFile("a", 3), Self.otherFile("b", 4), "  ", Self.totals(files: 2, bytes: 7),
        ])
        let outcome = try Self.check(lines).get()
        #expect(outcome.problems.isEmpty, "\(outcome.problems)")
        #expect(outcome.totals.files == 2)
        #expect(outcome.checkedMembers)

        let short = try Self.check([Self.header, Self.ownFile("a", 3), Self.totals(files: 2, bytes: 7)]).get()
        #expect(short.problems == ["the manifest lists 1 files (3 bytes) but its totals say 2 (7 bytes)"])
    }

    @Test(arguments: [
        ("a file line first", [ownFile("a", 1)], "line 1 is not the header"),
        ("a second header", [header, ownFile("a", 1), header], "line 3: a second header"),
        ("a file line after the totals", [header, totals(files: 0, bytes: 0), ownFile("a", 1)],
         "line 3: a file line after the totals"),
        ("another spelling after the totals", [header, totals(files: 0, bytes: 0), otherFile("a", 1)],
         "line 3: a file line after the totals"),
        ("a second totals line", [header, totals(files: 0, bytes: 0), totals(files: 0, bytes: 0)],
         "line 3: a second totals line"),
        ("the members line before the totals",
         [header, #"{"kind":"members","count":0,"sha256":"\#(digest)","manifestSha256":"\#(digest)"}"#],
         "line 2: the members line comes before the totals"),
        ("no totals", [header, ownFile("a", 1)], "no totals line"),
    ] as [(String, [String], String)])
    func linesOutOfOrderAreRefused(_ what: String, _ lines: [String], _ refusal: String) throws {
        let result = try Self.check(lines)
        guard case .failure(let error) = result else {
            Issue.record("\(what): accepted")
            return
        }
        #expect("\(error)".contains(refusal), "\(what): \(error)")
    }

    @Test func aLineAfterTheMembersLineIsRefused() throws {
        for last in [Self.ownFile("a", 1), Self.totals(files: 0, bytes: 0), "  "] {
            let lines = try Self.withMembers([Self.header, Self.totals(files: 0, bytes: 0)]) + [last]
            guard case .failure(let error) = try Self.check(lines) else {
                Issue.record("accepted \(last) after the members line")
                continue
            }
            #expect("\(error)".contains("a line after the members line"), "\(error)")
        }
    }
}
