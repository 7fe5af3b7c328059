// Device+Lock: one writer per device, through flock(2) on `DeviceLocal/lock`.
import Glibc
import SystemKit

extension Device {
    /// Runs `body` holding the device's exclusive lock (`DeviceLocal/lock`), waiting for any other
    /// devicectl that holds it. The kernel drops the lock if the process dies, so it never goes stale.
    /// Throws `SystemError` when the lock file cannot be opened or locked, or what `body` throws.
    public func withLock<T>(_ body: () throws -> T) throws -> T {
        let lock = try self.lock(wait: true)
        defer { try? lock.release() }
        return try body()
    }

    /// Takes the device lock (the lock file is created beneath ROOT when missing); without `wait`, throws
    /// `SystemError` with EWOULDBLOCK when another process holds it.
    public func lock(wait: Bool) throws(SystemError) -> FileLock {
        let file = try directory.openRegular(DeviceLayout.lock, flags: O_RDWR | O_CREAT, mode: 0o644)
        return try FileLock(file: file, wait: wait)
    }
}
