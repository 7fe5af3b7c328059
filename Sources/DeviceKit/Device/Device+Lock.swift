// Device+Lock: one writer per device, through flock(2) on `DeviceLocal/lock`.
import SystemKit

extension Device {
    /// Runs `body` holding the device's exclusive lock (`DeviceLocal/lock`), waiting for any other
    /// devicectl that holds it. The kernel drops the lock if the process dies, so it never goes stale.
    /// Throws `SystemError` when the lock file cannot be opened or locked, or what `body` throws.
    public func withLock<T>(_ body: () throws -> T) throws -> T {
        let lock = try FileLock(path: path(DeviceLayout.lock), wait: true)
        defer { try? lock.release() }
        return try body()
    }
}
