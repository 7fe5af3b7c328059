// SparseFile: files with holes for tests (ftruncate, then pwrite of the data regions), and what to check on one:
// its allocated bytes (du) and the SHA-256 of its logical content.
import CCrypto
import Foundation
import Glibc
import SystemKit

public enum SparseFile {
    /// Creates `path` (0644) of `size` bytes whose data is `regions` (offset, length), the rest holes. The data is
    /// seeded noise with each 4 KiB block's file offset stamped in its first 8 bytes, so a block stored at the
    /// wrong offset never matches.
    public static func make(
        _ path: String, size: UInt64, data regions: [(offset: UInt64, length: UInt64)], seed: UInt64 = 1
    ) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SystemError("open", path: path) }
        defer { close(fd) }
        guard ftruncate(fd, off_t(size)) == 0 else { throw SystemError("ftruncate", path: path) }
        var generator = SeededGenerator(seed: seed)
        let noise = (0..<(1 << 17)).map { _ in generator.next() }  // 1 MiB
        var chunk = [UInt64](repeating: 0, count: noise.count)
        for region in regions {
            var offset = region.offset
            while offset < region.offset + region.length {
                let count = Int(min(region.offset + region.length - offset, UInt64(chunk.count * 8)))
                for index in 0..<chunk.count {
                    chunk[index] = index % 512 == 0 ? (offset + UInt64(index * 8)).littleEndian : noise[index]
                }
                let written = chunk.withUnsafeBytes { pwrite(fd, $0.baseAddress, count, off_t(offset)) }
                guard written == count else { throw SystemError("pwrite", path: path) }
                offset += UInt64(count)
            }
        }
    }

    /// Bytes allocated to `path` (`st_blocks * 512`, what `du` counts).
    public static func allocatedBytes(_ path: String) throws -> UInt64 {
        try FileStatus.of(path).allocatedBytes
    }

    /// The SHA-256 of the file's content (holes read as zeros), as lowercase hex; read in 1 MiB blocks.
    public static func sha256(_ path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open", path: path) }
        defer { close(fd) }
        var context = SHA256_CTX()
        SHA256_Init(&context)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n >= 0 else { throw SystemError("read", path: path) }
            if n == 0 { break }
            _ = buffer.withUnsafeBytes { SHA256_Update(&context, $0.baseAddress, n) }
        }
        var digest = [UInt8](repeating: 0, count: 32)
        SHA256_Final(&digest, &context)
        return digest.map { String(format: "%02x", $0) }.joined()
    }
}
