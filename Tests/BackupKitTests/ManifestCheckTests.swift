// ManifestCheckTests: the manifest's grammar (a header, file lines, the totals, the members line, nothing after),
// enforced alike for devicectl's own file lines (read by the fast path) and any other spelling of them.
import Foundation
import SystemKit
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
        #"{"kind":"totals","files":\#(files),"bytes":\#(bytes),"directories":0,"symlinks":0,"hardlinks":0,"#
            + #""excluded":{"files":0,"bytes":0,"byReason":{}}}"#
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

extension ManifestCheckTests {
    /// The files read before the manifest, as restore logs them.
    static func logged(_ files: [(String, UInt64, String)]) throws -> DigestLog.Reader {
        let log = DigestLog()
        for (path, size, hex) in files {
            let digest = try #require(Hex.decode(Array(hex.utf8)))
            try digest.withUnsafeBytes { try log.append(path: Array(path.utf8), size: size, digest: $0) }
        }
        return try log.reader()
    }

    /// Compares a manifest of `lines` with `files` as restore does; its problems.
    static func problems(_ lines: [String], against files: [(String, UInt64, String)]) throws -> [String] {
        var observed = ManifestCheck.Observed()
        observed.counts.files = UInt64(files.count)
        observed.counts.bytes = files.reduce(0) { $0 + $1.1 }
        let check = try ManifestCheck(log: try logged(files), observed: observed)
        let text = Array(lines.map { $0 + "\n" }.joined().utf8)
        try text.withUnsafeBytes { try check.feed($0) }
        return try check.finish().problems
    }

    /// Each file line in devicectl's own spelling (read in place, matched without copies) finds the same
    /// mismatches as the general spelling: a changed digest or size, a missing and an extra member.
    @Test func ownAndOtherSpellingsFindTheSameMismatches() throws {
        let other = String(repeating: "cd", count: 32)
        let files: [(String, UInt64, String)] = [
            ("a", 1, Self.digest), ("b", 2, other), ("c", 3, Self.digest), ("x", 4, Self.digest), ("d", 5, Self.digest),
            ("e", 6, Self.digest),
        ]
        // b's digest and c's size differ; x is not in the manifest; f is not in the archive.
        let listed: [(String, Int)] = [("a", 1), ("b", 2), ("c", 30), ("d", 5), ("e", 6), ("f", 7)]
        let expected = [
            "SHA-256 mismatch for 'b': the data differs from what the manifest recorded",
            "size mismatch for 'c': 3 bytes in the archive, 30 in the manifest",
            "extra member 'x': in the archive but not in the manifest",
            "missing member 'f': in the manifest but not in the archive",
        ]
        for spelling in [Self.ownFile, Self.otherFile] {
            let lines = [Self.header] + listed.map { spelling($0.0, $0.1) } + [Self.totals(files: 6, bytes: 21)]
            let found = try Self.problems(lines, against: files)
            #expect(found.filter { !$0.contains("totals say") } == expected, "\(found)")
        }
        let same = files.map { ($0.0, $0.1, Self.digest) }
        let matching = [Self.header] + same.map { Self.ownFile($0.0, Int($0.1)) } + [Self.totals(files: 6, bytes: 21)]
        #expect(try Self.problems(matching, against: same).isEmpty)
    }

    /// Enough files that the log spills to its file and records straddle its 256 KiB reads: every line still
    /// matches its record, and the one changed digest is found.
    @Test func aSpilledLogIsMatchedAcrossItsReads() throws {
        let other = String(repeating: "cd", count: 32)
        let files = (0..<20_000).map {
            ("Library/Caches/file-\($0)", UInt64($0 % 7), $0 == 19_000 ? other : Self.digest)
        }
        let bytes = files.reduce(0) { $0 + Int($1.1) }
        let lines =
            [Self.header] + files.map { Self.ownFile($0.0, Int($0.1)) } + [Self.totals(files: 20_000, bytes: bytes)]
        #expect(try Self.problems(lines, against: files) == [
            "SHA-256 mismatch for 'Library/Caches/file-19000': the data differs from what the manifest recorded"
        ])
    }
}
