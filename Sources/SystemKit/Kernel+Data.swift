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

    /// `pread(2)`: up to `count` bytes at `offset` into `buffer`, leaving the file offset alone. Returns the bytes
    /// read (0 at the end of the file), or -1 with errno set.
    public static func read(
        _ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int, at offset: UInt64
    ) -> Int {
        pread(descriptor, buffer, count, off_t(Int64(bitPattern: offset)))
    }
}
