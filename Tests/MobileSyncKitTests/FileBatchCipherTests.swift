// FileBatchCipherTests: many files encrypted at once, each under its own key, give the bytes `FileCipher` gives
// each alone (itself checked against OpenSSL's command line), through Intel's multi-buffer library and without it.
import Foundation
import MobileSyncKit
import Testing

@Suite struct FileBatchCipherTests {
    /// Pseudo-random bytes from a seed (deterministic: a failure repeats).
    static func bytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed &+ 0x9E37_79B9_7F4A_7C15
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    /// Lengths around every edge: empty, within a block, on a block, the longest file a batch takes (65,519 bytes
    /// pad to 65,520), and enough files (1,200) that the library's key-schedule slots (512) are reused.
    static let lengths: [Int] = [0, 1, 15, 16, 17, 31, 32, 4095, 4096, 65_503, 65_504, 65_519]
        + (0..<1_188).map { ($0 * 977) % 9_000 }

    /// `plain` encrypted alone by `FileCipher`: padded, zero IV.
    static func alone(_ plain: [UInt8], key: [UInt8]) throws -> [UInt8] {
        let cipher = try FileCipher(key: key)
        var output = [UInt8](repeating: 0, count: plain.count + 32)
        let produced = try plain.withUnsafeBytes { input in try output.withUnsafeMutableBytes { try cipher.update(input, into: $0) } }
        return Array(output[0..<produced]) + (try #require(cipher.finish()))
    }

    @Test(arguments: [true, false])
    func aBatchGivesEachFilesOwnCiphertext(accelerated: Bool) throws {
        let cipher = FileBatchCipher(accelerated: accelerated)
        if !accelerated { #expect(!cipher.isAccelerated) }
        let plains = Self.lengths.enumerated().map { Self.bytes($0.element, seed: UInt64($0.offset)) }
        let keys = Self.lengths.indices.map { Self.bytes(32, seed: 1_000_000 + UInt64($0)) }
        // Each file padded (PKCS#7) in one buffer, as the content-file writer lays them out, back to back.
        var padded: [[UInt8]] = plains.map { plain in
            let padding = FileBatchCipher.padding(forLength: plain.count)
            return plain + [UInt8](repeating: UInt8(padding), count: padding)
        }
        let total = padded.reduce(0) { $0 + $1.count }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: total, alignment: 16)
        defer { buffer.deallocate() }
        var offsets: [Int] = []
        var offset = 0
        for file in padded {
            offsets.append(offset)
            UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + file.count)]).copyBytes(from: file)
            offset += file.count
        }
        let keyBytes = keys.flatMap { $0 }
        try keyBytes.withUnsafeBytes { keyBuffer in
            for index in padded.indices {
                cipher.add(
                    UnsafeMutableRawBufferPointer(rebasing: buffer[offsets[index]..<(offsets[index] + padded[index].count)]),
                    key: keyBuffer.baseAddress! + 32 * index)
            }
            try cipher.run()
        }
        for index in padded.indices {
            padded[index] = Array(buffer[offsets[index]..<(offsets[index] + padded[index].count)])
            #expect(padded[index] == (try Self.alone(plains[index], key: keys[index])), "file \(index), \(plains[index].count) bytes")
        }
        // A second run on the same cipher (its contexts reused) is as good as the first.
        var again = Self.bytes(48, seed: 7)
        let plainAgain = Array(again[0..<40])
        for index in 40..<48 { again[index] = 8 }
        try keys[3].withUnsafeBytes { key in
            try again.withUnsafeMutableBytes { data in
                cipher.add(data, key: key.baseAddress!)
                try cipher.run()
            }
        }
        #expect(again == (try Self.alone(plainAgain, key: keys[3])))
    }

    /// Where Debian's libipsec-mb1 is installed (on amd64 `make deps` installs it), the batch uses it: the speed is
    /// the point of the type, so a build or a loader that quietly lost it fails here.
    @Test func theLibraryIsUsedWhereItIsInstalled() throws {
        let installed = FileManager.default.fileExists(atPath: "/usr/lib/x86_64-linux-gnu/libIPSec_MB.so.1")
        let aes = ((try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? "").contains(" aes ")
        #expect(FileBatchCipher().isAccelerated == (installed && aes))
    }

    /// A file that is not whole blocks, or too long for one job, fails the batch before any file is touched.
    @Test(arguments: [true, false])
    func aFileNotPaddedFailsTheBatchAndTouchesNothing(accelerated: Bool) throws {
        let cipher = FileBatchCipher(accelerated: accelerated)
        let key = Self.bytes(32, seed: 9)
        for length in [15, 0, FileBatchCipher.maximumLength + 16] {
            var good = [UInt8](repeating: 0x41, count: 32)
            var bad = [UInt8](repeating: 0x42, count: length)
            key.withUnsafeBytes { key in
                good.withUnsafeMutableBytes { good in
                    bad.withUnsafeMutableBytes { bad in
                        cipher.add(good, key: key.baseAddress!)
                        cipher.add(bad, key: key.baseAddress!)
                        #expect(throws: MobileSyncError.self) { try cipher.run() }
                    }
                }
            }
            #expect(good == [UInt8](repeating: 0x41, count: 32) && bad == [UInt8](repeating: 0x42, count: length))
        }
    }
}
