// ManifestPrefixDigestTests: list's reading thread hashes the manifest's raw bytes before its last line, which must
// be what ManifestCheck hashes itself from the lines (restore and verify), whatever the blocks and the lines.
import SystemKit
import TestSupport
import Testing

@testable import BackupKit

@Suite struct ManifestPrefixDigestTests {
    /// The digest of `text` fed in blocks of `block` bytes.
    private func prefixDigest(_ text: [UInt8], block: Int) throws -> String {
        let digest = try ManifestPrefixDigest()
        for start in stride(from: 0, to: text.count, by: block) {
            text[start..<min(start + block, text.count)].withUnsafeBytes { digest.update($0) }
        }
        return digest.finish()
    }

    /// SHA-256 of the bytes before the last line (after the newline before it; all bytes for one line or none).
    private func expected(_ text: [UInt8]) throws -> String {
        var end = text.count
        if text.last == 0x0A { end -= 1 }
        let start = text[..<end].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        return try SHA256Digest.hex(of: Array(text[..<start]))
    }

    @Test(arguments: [1, 2, 3, 7, 64, 211, 4096])
    func theBytesBeforeTheLastLineInAnyBlocks(_ block: Int) throws {
        let cases: [String] = [
            "", "\n", "\n\n", "one line", "one line\n", "a\nb", "a\nb\n", "a\n\nb\n", "a\r\nb\r\n", "  \n\t\nlast",
            "header\nfile 1\nfile 2\ntotals\nmembers\n", "header\nfile 1\nfile 2\ntotals\nmembers",
            String(repeating: "x", count: 5000) + "\n" + String(repeating: "y", count: 3000) + "\nz\n",
        ]
        for text in cases {
            let bytes = Array(text.utf8)
            #expect(try prefixDigest(bytes, block: block) == expected(bytes), "\(text.debugDescription)")
        }
    }

    @Test func manyRandomManifests() throws {
        var generator = SeededGenerator(seed: 5)
        for _ in 0..<300 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(generator.next() % 40) {
                bytes += Array(repeating: UInt8(ascii: "k"), count: Int(generator.next() % 300))
                bytes.append(0x0A)
            }
            if generator.next() % 2 == 0 { bytes += Array("tail".utf8) }
            let block = 1 + Int(generator.next() % 700)
            #expect(try prefixDigest(bytes, block: block) == expected(bytes))
        }
    }

    /// A line longer than a block (here 1 MiB, in 4 KiB blocks) takes no memory and changes nothing.
    @Test func aLongLine() throws {
        let bytes = Array("head\n".utf8) + [UInt8](repeating: 0x41, count: 1 << 20) + Array("\nmembers\n".utf8)
        #expect(try prefixDigest(bytes, block: 4096) == expected(bytes))
        #expect(try prefixDigest(Array(bytes.dropLast(9)), block: 4096) == expected(Array(bytes.dropLast(9))))
    }

    /// The check given the digest finds what the check hashing on its own thread finds: nothing in a good manifest,
    /// the alteration in an altered one, before any other problem.
    @Test func aCheckGivenTheDigestFindsWhatAHashingCheckFinds() throws {
        let good = try ManifestCheckTests.withMembers([
            ManifestCheckTests.header, ManifestCheckTests.ownFile("a", 3), "  ",
            ManifestCheckTests.totals(files: 1, bytes: 3),
        ])
        var altered = good
        altered[1] = ManifestCheckTests.ownFile("b", 3)
        var alteredAndShort = altered
        alteredAndShort[3] = ManifestCheckTests.totals(files: 2, bytes: 3)
        for (lines, terminated) in [(good, true), (good, false), (altered, true), (alteredAndShort, true)] {
            var text = Array(lines.joined(separator: "\n").utf8)
            if terminated { text.append(0x0A) }
            let hashing = try ManifestCheck()
            let given = try ManifestCheck(digestSupplied: true)
            let prefix = try ManifestPrefixDigest()
            for start in stride(from: 0, to: text.count, by: 13) {
                try text[start..<min(start + 13, text.count)].withUnsafeBytes { block in
                    try hashing.feed(block)
                    try given.feed(block)
                    prefix.update(block)
                }
            }
            let expected = try hashing.finish().problems
            #expect(try given.finish(manifestDigest: prefix.finish()).problems == expected)
            #expect(expected.isEmpty == (lines == good))
        }
    }
}
