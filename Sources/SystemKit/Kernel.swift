// Kernel: the Linux calls and flags glibc hides from Swift (openat2, renameat2, statx, syncfs, O_PATH ...),
// for the modules above SystemKit, which import no C shim of their own.
import CSupport
import Glibc

/// Thin, allocation-free wrappers over CSupport's Linux calls. Each returns what the call returns and leaves
/// `errno` as the call set it, so the caller reads it right after (`SystemError(_:path:)` reads it first).
public enum Kernel {
    /// `O_PATH`: a descriptor that only locates a file (usable as an *at() directory).
    public static let pathOnly: Int32 = CSUPPORT_O_PATH
    /// `O_TMPFILE`: an unnamed temporary file in the given directory.
    public static let temporaryFile: Int32 = CSUPPORT_O_TMPFILE

    /// `openat2`'s `resolve` flags (linux/openat2.h).
    public struct Resolve: OptionSet, Sendable {
        public let rawValue: UInt64
        public init(rawValue: UInt64) { self.rawValue = rawValue }
        /// Refuse any resolution that leaves the directory (absolute paths, `..`, symlinks out).
        public static let beneath = Resolve(rawValue: CSUPPORT_RESOLVE_BENEATH)
        /// Refuse every symlink on the way.
        public static let noSymlinks = Resolve(rawValue: CSUPPORT_RESOLVE_NO_SYMLINKS)
        /// Refuse /proc "magic" links.
        public static let noMagicLinks = Resolve(rawValue: CSUPPORT_RESOLVE_NO_MAGICLINKS)
    }

    /// What `renameat2` does when the target exists.
    public enum RenameMode: Sendable {
        /// Fail with EEXIST (`RENAME_NOREPLACE`).
        case noReplace
        /// Swap the two names atomically (`RENAME_EXCHANGE`).
        case exchange
    }

    /// `openat2(2)` with `flags` (O_CLOEXEC is the caller's), `mode` for a created file and `resolve`.
    /// Returns the descriptor, or -1 with errno set.
    public static func openat2(
        _ directory: Int32, _ path: UnsafePointer<CChar>, _ flags: Int32, mode: mode_t = 0, resolve: Resolve
    ) -> Int32 {
        csupport_openat2(directory, path, UInt64(UInt32(bitPattern: flags)), UInt64(mode), resolve.rawValue)
    }

    /// `renameat2(2)`. Returns 0, or -1 with errno set.
    public static func renameat2(
        _ fromDirectory: Int32, _ from: UnsafePointer<CChar>, _ toDirectory: Int32, _ to: UnsafePointer<CChar>,
        _ mode: RenameMode
    ) -> Int32 {
        let flags = mode == .noReplace ? CSUPPORT_RENAME_NOREPLACE : CSUPPORT_RENAME_EXCHANGE
        return csupport_renameat2(fromDirectory, from, toDirectory, to, flags)
    }

    /// `syncfs(2)`: flushes the whole file system holding `descriptor`. Returns 0, or -1 with errno set.
    public static func syncfs(_ descriptor: Int32) -> Int32 { csupport_syncfs(descriptor) }

    /// `statx(2)` of `name` in `directory`, not following a symlink; nil with errno set.
    public static func status(of name: UnsafePointer<CChar>, in directory: Int32) -> FileStatus? {
        var raw = csupport_stat()
        return csupport_statx(directory, name, 0, &raw) == 0 ? FileStatus(raw) : nil
    }

    /// `statx(2)` of the open file `descriptor` (`AT_EMPTY_PATH`); nil with errno set.
    public static func status(ofDescriptor descriptor: Int32) -> FileStatus? {
        var raw = csupport_stat()
        return csupport_statx(descriptor, "", CSUPPORT_AT_EMPTY_PATH, &raw) == 0 ? FileStatus(raw) : nil
    }
}
