// Device+Lock: one writer per device, through flock(2) on `DeviceLocal/lock`.
import Foundation
import Glibc
import SystemKit

extension Device {
    /// Runs `body` holding the device's exclusive lock (`DeviceLocal/lock`). When another devicectl holds it,
    /// `lockWait` says so and waits (at most its timeout: `DeviceError.lockTimeout`). The kernel drops the
    /// lock if the process dies, so it never goes stale. Throws `SystemError` when the lock file cannot be
    /// opened or locked, or what `body` throws.
    public func withLock<T>(_ body: () throws -> T) throws -> T {
        let lock = try self.lock(waiting: lockWait)
        defer { try? lock.release() }
        return try body()
    }

    /// Takes the device lock (the lock file is created beneath ROOT when missing); without `wait`, throws
    /// `SystemError` with EWOULDBLOCK when another process holds it.
    public func lock(wait: Bool) throws(SystemError) -> FileLock {
        let file = try directory.openRegular(DeviceLayout.lock, flags: O_RDWR | O_CREAT, mode: 0o644)
        return try FileLock(file: file, wait: wait)
    }

    /// Takes the device lock as `wait` says: at once when it is free; else tells `wait.waiting` who holds it
    /// and waits, at most `wait.timeout` seconds.
    func lock(waiting wait: DeviceLockWait) throws -> FileLock {
        let file = try directory.openRegular(DeviceLayout.lock, flags: O_RDWR | O_CREAT, mode: 0o644)
        do {
            if flock(file.rawValue, LOCK_EX | LOCK_NB) != 0 {
                guard errno == EWOULDBLOCK else { throw SystemError("flock", path: file.path) }
                wait.waiting?(Device.holder(file))
                try Device.waitForLock(file, timeout: wait.timeout, root: root)
            }
        } catch {
            try? file.close()
            throw error
        }
        return try FileLock(file: file, wait: true)  // held already: returns at once
    }

    /// Blocks until `file` is locked; with a timeout, retries every 20 ms until the deadline.
    private static func waitForLock(_ file: borrowing FileDescriptor, timeout: Double?, root: String) throws {
        guard let timeout else {
            try SystemError.check("flock", path: file.path) { flock(file.rawValue, LOCK_EX) }
            return
        }
        let deadline = Date().addingTimeInterval(max(0, timeout))
        while flock(file.rawValue, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else { throw SystemError("flock", path: file.path) }
            guard Date() < deadline else {
                throw DeviceError.lockTimeout(root: root, seconds: timeout, holder: holder(file))
            }
            var pause = timespec(tv_sec: 0, tv_nsec: 20_000_000)
            nanosleep(&pause, nil)
        }
    }

    /// The pid holding an exclusive flock on `file`, from the kernel's lock table (`/proc/locks`: its
    /// `FLOCK ... WRITE PID MAJOR:MINOR:INODE` lines), so the holder writes nothing to say who it is.
    /// Nil when it cannot be told (no /proc, the holder just left). At most 4 MiB of the table is read.
    static func holder(_ file: borrowing FileDescriptor) -> Int32? {
        guard let status = try? file.status(),
            let table = try? FileDescriptor.open("/proc/locks", flags: O_RDONLY)
        else { return nil }  // `table` closes when it goes out of scope
        guard let bytes = try? table.readAll(limit: 4 << 20) else { return nil }
        let dev = status.device
        let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & ~UInt64(0xfff))
        let minor = (dev & 0xff) | ((dev >> 12) & ~UInt64(0xff))
        let place = "\(NumberText.padded(major, width: 2, radix: 16)):\(NumberText.padded(minor, width: 2, radix: 16)):\(status.inode)"
        for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK", fields[3] == "WRITE", fields[5] == place,
                let pid = Int32(fields[4]), pid > 0, pid != getpid()
            else { continue }
            return pid
        }
        return nil
    }
}
