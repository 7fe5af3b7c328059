// Kernel+Data: a file's data by offset (pread) and where its data and holes lie (lseek SEEK_DATA/SEEK_HOLE,
// which glibc hides without _GNU_SOURCE).
import CSupport
import Glibc

extension Kernel {
    /// What `seek(_:to:_:)` looks for.
    public enum SeekTarget: Sendable {
        /// The first byte of data at or after the offset (`SEEK_DATA`).
        case data
        /// The first byte of a hole at or after the offset (`SEEK_HOLE`; the end of the file counts as one).
        case hole
    }

    /// `lseek(2)` with `SEEK_DATA` or `SEEK_HOLE`. Returns the offset found, or -1 with errno set (ENXIO: no data at
    /// or after `offset`, or `offset` is past the end).
    public static func seek(_ descriptor: Int32, to offset: Int64, _ target: SeekTarget) -> Int64 {
        Int64(lseek(descriptor, off_t(offset), target == .data ? CSUPPORT_SEEK_DATA : CSUPPORT_SEEK_HOLE))
    }

    /// Writes all of `bytes` to `descriptor`: at `offset` with `pwrite(2)` when one is given, else at the file offset
    /// with `write(2)`; short writes are continued and EINTR retried. A failure names the call and `path` (made only
    /// then). Inlinable: a MobileSync backup's writers call it once a content file, and as a call into this module
    /// with its path closure it cost 4% of that backup's time (21 alternating rounds).
    @inlinable
    public static func writeAll(
        _ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, at offset: UInt64? = nil,
        path: @autoclosure () -> String
    ) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let start = bytes.baseAddress! + done, count = bytes.count - done
            let n = offset.map { pwrite(descriptor, start, count, off_t(Int64(bitPattern: $0 + UInt64(done)))) }
                ?? Glibc.write(descriptor, start, count)
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                throw SystemError(offset == nil ? "write" : "pwrite", path: path(), code: code)
            }
            done += n
        }
    }

    /// `pread(2)`: up to `count` bytes at `offset` into `buffer`, leaving the file offset alone. Returns the bytes
    /// read (0 at the end of the file), or -1 with errno set.
    public static func read(
        _ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int, at offset: UInt64
    ) -> Int {
        pread(descriptor, buffer, count, off_t(Int64(bitPattern: offset)))
    }
}
