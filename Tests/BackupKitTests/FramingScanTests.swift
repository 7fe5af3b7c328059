// FramingScanTests: the framing audit's word-at-a-time scans find every non-zero byte where the byte loop did, and
// `MemberPath.names` (list's and the reader's cheap manifest test) agrees with the full name check.
import Foundation
import Testing
import TarKit
import TestSupport

@Suite struct FramingScanTests {
    /// Members of 1 to 17 bytes put their padding at every alignment; one byte flipped anywhere in it (first, last,
    /// each of the first 17 positions) or after the end-of-archive mark is reported at its exact offset.
    @Test func aByteFlippedInAnyPaddingIsFoundAtItsOffset() throws {
        var builder = TarBuilder()
        var paddings: [Range<Int>] = []
        for size in 1...17 {
            builder.header(name: Array("f\(size)".utf8), type: UInt8(ascii: "0"), size: size)
            let start = builder.bytes.count + size
            builder.data((0..<size).map { UInt8(truncatingIfNeeded: $0 + 1) })
            paddings.append(start..<builder.bytes.count)
        }
        let endMark = builder.bytes.count
        builder.end()
        let clean = builder.bytes
        var positions: [Int] = []
        for padding in paddings {
            positions += Array(padding.prefix(17)) + [padding.upperBound - 1]
        }
        positions += [endMark + 1024, endMark + 1031, clean.count - 1]
        try withTemporaryDirectory { base in
            #expect(try Self.failure(clean, in: base) == nil)
            for position in positions {
                var bytes = clean
                bytes[position] = 0x20
                let failure = try Self.failure(bytes, in: base)
                guard case .damaged(let offset, let reason) = failure else {
                    Issue.record("byte \(position): \(String(describing: failure))")
                    continue
                }
                #expect(offset == UInt64(position), "byte \(position): \(reason)")
            }
        }
    }

    /// `names` against `MemberPath(raw).bytes == name` on hand-made names and 20,000 seeded ones built from the parts
    /// that matter (`.`, `..`, `/`, the name, its pieces).
    @Test func namesAgreesWithTheFullCheck() {
        let name = Array("devicectl-manifest.jsonl".utf8)
        func full(_ raw: [UInt8]) -> Bool { (try? MemberPath(raw))?.bytes == name }
        let handMade = [
            "devicectl-manifest.jsonl", "./devicectl-manifest.jsonl", "devicectl-manifest.jsonl/",
            "devicectl-manifest.jsonl/.", "devicectl-manifest.jsonl/./", ".//devicectl-manifest.jsonl//.",
            "a/devicectl-manifest.jsonl", "devicectl-manifest.jsonl/..", "devicectl-manifest.jsonl.",
            "xdevicectl-manifest.jsonl", "/devicectl-manifest.jsonl", "devicectl-manifest.json", "", ".", "/",
        ]
        for raw in handMade { #expect(MemberPath.names(Array(raw.utf8), name) == full(Array(raw.utf8)), "\(raw)") }
        let parts = ["devicectl-manifest.jsonl", "/", ".", "..", "devicectl-", "manifest.jsonl", "a", "\0", "l"]
        var random = SeededGenerator(seed: 20_261_203)
        var matched = 0
        for _ in 0..<20_000 {
            let raw = (0..<Int.random(in: 1...6, using: &random)).flatMap { _ in
                Array(parts[Int.random(in: 0..<parts.count, using: &random)].utf8)
            }
            let expected = full(raw)
            if expected { matched += 1 }
            #expect(MemberPath.names(raw, name) == expected, "\(String(decoding: raw, as: UTF8.self))")
        }
        #expect(matched > 100)  // the seeded names reach both answers
    }

    /// The reader's failure on `bytes`, read member by member to the end; nil when it reads cleanly.
    private static func failure(_ bytes: [UInt8], in base: String) throws -> ArchiveReaderError? {
        let path = base + "/a.tar"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            // Opening reads ahead (libarchive's format bidding): the audit may fail there already.
            let reader = try ArchiveReader(path: path)
            defer { try? reader.close() }
            while try reader.next() != nil { try reader.skipData() }
            return nil
        } catch let error as ArchiveReaderError {
            return error
        }
    }
}
