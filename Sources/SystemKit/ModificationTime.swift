// ModificationTime: the one mtime setter (the access time is left as it is), without allocating.
import CSupport
import Glibc

/// Sets a file's modification time and leaves its access time unchanged (`UTIME_OMIT`).
public enum ModificationTime {
    /// Sets the mtime of the open file `descriptor` (`futimens`).
    /// - Throws: `SystemError` for `futimens`, naming `path`.
    public static func set(_ mtime: timespec, descriptor: Int32, path: @autoclosure () -> String) throws(SystemError) {
        let status = withTimes(mtime) { futimens(descriptor, $0) }
        if status != 0 { throw SystemError("futimens", path: path()) }
    }

    /// Sets the mtime of `name` in `directory` (`utimensat`; a symlink's own mtime, never its target's).
    /// - Throws: `SystemError` for `utimensat`, naming `path`.
    public static func set(
        _ mtime: timespec, name: UnsafePointer<CChar>, in directory: Int32, path: @autoclosure () -> String
    ) throws(SystemError) {
        let status = withTimes(mtime) { utimensat(directory, name, $0, AT_SYMLINK_NOFOLLOW) }
        if status != 0 { throw SystemError("utimensat", path: path()) }
    }

    /// Calls `body` with the two-element times array the calls take: access time omitted, then `mtime`.
    private static func withTimes(_ mtime: timespec, _ body: (UnsafePointer<timespec>) -> Int32) -> Int32 {
        let times = (timespec(tv_sec: 0, tv_nsec: CSUPPORT_UTIME_OMIT), mtime)
        return withUnsafeBytes(of: times) { body($0.baseAddress!.assumingMemoryBound(to: timespec.self)) }
    }
}
