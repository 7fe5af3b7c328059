// FileLock: an exclusive flock(2) on a lock file, held until released or the process ends.
import Glibc

/// An exclusive advisory lock. The kernel drops it when the process dies, so a killed run never
/// leaves a stale lock behind.
public final class FileLock {
    /// The locked file; nil once released.
    private var file: FileDescriptor?

    /// Takes the lock on `path` (created if missing). Waits when `wait` is true; otherwise throws
    /// `SystemError` with EWOULDBLOCK when another process holds it.
    public convenience init(path: String, wait: Bool = true) throws(SystemError) {
        try self.init(file: try FileDescriptor.open(path, flags: O_RDWR | O_CREAT, mode: 0o644), wait: wait)
    }

    /// Takes the lock on the open lock file `file` (e.g. opened beneath a device root).
    public init(file: consuming FileDescriptor, wait: Bool = true) throws(SystemError) {
        let operation = LOCK_EX | (wait ? 0 : LOCK_NB)
        try SystemError.check("flock", path: file.path) { flock(file.rawValue, operation) }
        self.file = consume file
    }

    /// Whether `path` still names the locked file. A lock file removed or replaced while this process waited
    /// for it locks nothing any more: take it again from the path.
    public func isCurrent(at path: String) -> Bool {
        guard let named = try? FileStatus.of(path) else { return false }
        return isCurrent(named)
    }

    /// Whether `relative` beneath `root` still names the locked file.
    public func isCurrent(_ relative: String, in root: ContainedRoot) -> Bool {
        guard let named = try? root.status(relative) else { return false }
        return isCurrent(named)
    }

    private func isCurrent(_ named: FileStatus) -> Bool {
        guard let held = try? file?.status() else { return false }
        return held.inode == named.inode && held.device == named.device
    }

    /// Whether another open file of `file` holds a `flock` on it (a live owner), found by taking a shared lock
    /// without waiting and releasing it at once. The release is explicit (`LOCK_UN`), not left to `close`: a
    /// lock belongs to the open file, and a child this process forks meanwhile (which holds a copy of the
    /// descriptor until its `exec`) would otherwise keep it held after the probe, so that another process's
    /// probe or recovery of the same file would take this one's probe for a live owner.
    public static func isHeld(_ file: borrowing FileDescriptor) -> Bool {
        guard flock(file.rawValue, LOCK_SH | LOCK_NB) == 0 else { return true }
        _ = flock(file.rawValue, LOCK_UN)
        return false
    }

    /// Releases the lock: explicitly (`LOCK_UN`) before the close, because a child forked meanwhile holds a copy
    /// of the descriptor until its `exec`, and with it the lock, which the next holder would wait for.
    public func release() throws(SystemError) {
        guard let held = file.take() else { return }
        _ = flock(held.rawValue, LOCK_UN)
        try held.close()
    }

    deinit {
        if let held = file.take() { _ = flock(held.rawValue, LOCK_UN) }
    }
}
