// FileDescriptor+PositionalRead: reading an exact byte range of a file (pread), for parsing a large file in parts.
import Glibc
import SystemKit

extension FileDescriptor {
    /// Exactly `count` bytes at `offset` (pread, retried on short reads). A file that ends before them (it
    /// shrank since it was measured) fails with `EIO`; `count` is the caller's bounded size, never a file's.
    func read(at offset: UInt64, count: Int) throws(SystemError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let position = off_t(clamping: offset + UInt64(done))
            let n = try bytes.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemError) -> Int in
                    try SystemError.check("pread", path: path) {
                        Glibc.pread(rawValue, buffer.baseAddress! + done, count - done, position)
                    }
                }
            }.get()
            guard n > 0 else { throw SystemError("pread", path: path, code: EIO) }
            done += n
        }
        return bytes
    }
}
