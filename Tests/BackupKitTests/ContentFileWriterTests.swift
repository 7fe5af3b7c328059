// ContentFileWriterTests: the content-file thread's ciphertext, decrypted, is each file's bytes, whichever way the
// file went: whole in a batch (padded there and encrypted with the batch's others), or in pieces across batches.
@testable import BackupKit
import Foundation
import Glibc
import MobileSyncKit
import TestSupport
import Testing

@Suite struct ContentFileWriterTests {
    static func bytes(_ count: Int, seed: Int) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed &* 7 &+ ($0 >> 9)) }
    }

    /// `cipherText` decrypted under `key` (zero IV, PKCS#7), nil when the padding is wrong.
    static func decrypt(_ cipherText: [UInt8], key: [UInt8]) throws -> [UInt8]? {
        let cipher = try FileCipher(key: key, encrypting: false)
        var output = [UInt8](repeating: 0, count: cipherText.count + 16)
        let produced = try cipherText.withUnsafeBytes { input in
            try output.withUnsafeMutableBytes { try cipher.update(input, into: $0) }
        }
        guard let last = cipher.finish() else { return nil }
        return Array(output[0..<produced]) + last
    }

    /// Sizes that reach each path, in this order. 100,001 bytes: too long to be encrypted with others, so it goes in
    /// pieces and leaves the first batch's data one byte past a block; two files of 65,519 bytes (padded to 65,520,
    /// the longest taken whole) keep it so; 31,101 bytes then end two bytes before the batch's end, with no room for
    /// their three bytes of padding (in pieces again). An empty file and a one-byte one with no room left for their
    /// padding, a file split by the batch's end, then whole files in the next batch: empty, within a block, on a
    /// block, the longest, one byte too long. Last, a file longer than all sixteen batches together, so that the
    /// batch it began in comes back as a spare before it closes (it and the small files after it must not be taken
    /// for whole files of the recycled batch). The file `drained` is handed over in two halves with `drain()`
    /// between them: the batch it began in is then the spare taken next (spares are reused last in, first out), every
    /// time, so a file that left its batch must not be taken for a whole file of that batch come back.
    static let sizes: [Int] = [
        100_001, 65_519, 65_519, 31_101, 0, 1, 15, 16, 17, 4_000, 65_519, 65_520, 3,
        17 * ContentFileWriter.batchBytes + 5, 0, 9, 40_000, 31,
    ]
    static let drained = 16

    @Test(arguments: [true, false])
    func everyFileDecryptsToItsBytes(encrypted: Bool) throws {
        try withTemporaryDirectory { scratch in
            let directory = open(scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            try #require(directory >= 0)
            defer { Glibc.close(directory) }
            let writer = try ContentFileWriter(shown: scratch)
            var keys: [[UInt8]] = []
            for (index, size) in Self.sizes.enumerated() {
                let key = Self.bytes(32, seed: 1_000 + index)
                keys.append(key)
                try writer.create(in: directory, name: "f\(index)", key: encrypted ? key : nil)
                let data = Self.bytes(size, seed: index)
                // In pieces of up to 64 KiB, as the formatter hands data over.
                var offset = 0
                while offset < data.count {
                    let count = min(index == Self.drained ? size / 2 : 65_536, data.count - offset)
                    if index == Self.drained && offset > 0 { try writer.drain() }
                    try data[offset..<(offset + count)].withUnsafeBytes { try writer.write($0) }
                    offset += count
                }
                try writer.close()
            }
            _ = try writer.finish()
            for (index, size) in Self.sizes.enumerated() {
                let stored = [UInt8](try Data(contentsOf: URL(fileURLWithPath: "\(scratch)/f\(index)")))
                let expected = Self.bytes(size, seed: index)
                if encrypted {
                    #expect(stored.count == (size / 16 + 1) * 16, "f\(index): \(size) bytes")
                    #expect(try Self.decrypt(stored, key: keys[index]) == expected, "f\(index): \(size) bytes")
                } else {
                    #expect(stored == expected, "f\(index): \(size) bytes")
                }
            }
        }
    }
}
