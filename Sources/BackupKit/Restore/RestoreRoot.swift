// RestoreRoot: the destination as the restore found it (fresh device, absent, or empty) and how to put it back.
import CSupport
import DeviceKit
import Foundation
import Glibc
import SystemKit

/// ROOT, checked and (when absent or empty) initialised as a new device; `undo` returns it to how it was.
final class RestoreRoot {
    enum Origin: Equatable {
        /// A device made by `devicectl init` with no apps and no user data.
        case freshDevice
        /// ROOT did not exist: the restore created it.
        case created
        /// ROOT was an empty directory: the restore initialised it.
        case emptyDirectory
    }

    let path: String
    let origin: Origin
    let descriptor: FileDescriptor
    /// The mtime of the directory whose entries the restore changes (ROOT, or its parent when ROOT is created),
    /// put back by `undo`: creating and removing the staging directory must leave no trace.
    let savedTime: (path: String, mtime: timespec)?
    /// The device lock, held for the whole restore (one writer per device).
    private var lock: FileLock?
    /// The lock file did not exist before (then `undo` removes it and resets DeviceLocal's mtime).
    private var lockFileCreated: timespec?
    /// Staging directories of killed restores that `prepare` removed (their half-made moves rolled back).
    private(set) var recovered: [String] = []

    private init(path: String, origin: Origin, descriptor: FileDescriptor, savedTime: (path: String, mtime: timespec)?)
    {
        self.path = path
        self.origin = origin
        self.descriptor = descriptor
        self.savedTime = savedTime
    }

    /// Releases the device lock.
    func unlock() {
        try? lock?.release()
        lock = nil
    }

    /// Checks `path`, takes the device lock and opens ROOT; initialises a new device when ROOT is absent or an
    /// empty directory. Returns holding the device lock (one writer per device), so nothing can change ROOT
    /// between the check and the restore: a fresh device is checked only once its lock is held, after the
    /// staging directories of killed restores are removed (their half-made moves rolled back first), and
    /// two restores creating or initialising the same ROOT take turns (the second then finds a device that is
    /// not fresh any more). Throws `RestoreError.rootNotFresh` / `.rootNotDirectory` without changing anything.
    /// `interruption` is polled while waiting for the device lock (SIGINT must not wait for another devicectl).
    static func prepare(
        _ given: String, now: Date, interruption: () -> Int32? = { InterruptSignal.received }
    ) throws -> RestoreRoot {
        let path = try RootPath.resolve(given)
        while true {
            if let root = try attempt(path, now: now, interruption: interruption) { return root }
        }
    }

    /// One look at ROOT; nil when another restore changed it meanwhile (look again).
    private static func attempt(_ path: String, now: Date, interruption: () -> Int32?) throws -> RestoreRoot? {
        guard let status = try FileStatus.ifExists(path) else {
            let parent = (path as NSString).deletingLastPathComponent
            guard try FileStatus.ifExists(parent)?.kind == .directory else {
                throw SystemError("restore", path: parent, code: ENOENT)
            }
            let parentTime = try modificationTime(parent)
            guard mkdir(path, 0o755) == 0 else {
                if errno == EEXIST { return nil }
                throw SystemError("mkdir", path: path)
            }
            return try initialise(path, origin: .created, saved: parentTime.map { (parent, $0) }, now: now)
        }
        guard status.kind == .directory else { throw RestoreError.rootNotDirectory(path) }
        if Device.isDevice(at: path) { return try openFreshDevice(path, interruption: interruption) }
        return try initialise(path, origin: .emptyDirectory, saved: nil, now: now)
    }

    /// Initialises the empty directory `path` as a new device, under an exclusive `flock` of the directory
    /// (restores initialising the same directory take turns); nil when another restore initialised it first.
    private static func initialise(
        _ path: String, origin: Origin, saved given: (path: String, mtime: timespec)?, now: Date
    ) throws -> RestoreRoot? {
        let descriptor = try FileDescriptor.open(path, flags: O_RDONLY | O_DIRECTORY)
        try SystemError.check("flock", path: path) { flock(descriptor.rawValue, LOCK_EX) }
        defer { _ = flock(descriptor.rawValue, LOCK_UN) }
        if Device.isDevice(at: path) { return nil }
        guard try DirectoryEntries.list(descriptor.rawValue, display: path).isEmpty else {
            throw RestoreError.rootNotFresh(path)
        }
        let saved = try given ?? modificationTime(path).map { (path, $0) }
        do {
            try Device.initialize(path, now: now)
        } catch {
            RestoreRoot.undo(path: path, origin: origin, saved: saved)
            throw error
        }
        // Not waiting while ROOT's flock is held: if another devicectl already took the new device's lock, the
        // device is its now; look again (then wait for the lock as for any device).
        let lock: FileLock
        do {
            lock = try FileLock(path: "\(path)/\(DeviceLayout.lock)", wait: false)
        } catch {
            guard error.code == EWOULDBLOCK else {
                RestoreRoot.undo(path: path, origin: origin, saved: saved)
                throw error
            }
            return nil
        }
        let root = RestoreRoot(path: path, origin: origin, descriptor: descriptor, savedTime: saved)
        root.lock = lock
        return root
    }

    /// Takes the lock of the device at `path`, waiting for any other devicectl writing to it, removes stale
    /// staging directories, then checks that the device is fresh. nil when the lock file was removed or
    /// replaced while waiting (a failed restore undid the device): look again.
    private static func openFreshDevice(_ path: String, interruption: () -> Int32?) throws -> RestoreRoot? {
        let lockPath = "\(path)/\(DeviceLayout.lock)"
        var lockFileCreated: timespec?
        if try FileStatus.ifExists(lockPath) == nil {
            lockFileCreated = try modificationTime("\(path)/\(DeviceLayout.deviceLocal)")
        }
        let lock: FileLock
        do {
            lock = try waitForLock(lockPath, interruption: interruption)
        } catch {
            if let deviceLocalTime = lockFileCreated { removeLockFile(path, deviceLocalTime: deviceLocalTime) }
            throw error
        }
        guard lock.isCurrent(at: lockPath) else {
            try? lock.release()
            return nil
        }
        do {
            let descriptor = try FileDescriptor.open(path, flags: O_RDONLY | O_DIRECTORY)
            let recovered = try StagingDirectory.removeStale(in: descriptor, rootPath: path)
            guard Device.isDevice(at: path) else { throw RestoreError.rootNotFresh(path) }
            let device = try Device.open(path)
            try device.validate()  // a malformed identity or layout is named, not restored over
            guard try device.isFresh() else { throw RestoreError.rootNotFresh(path) }
            let saved = try modificationTime(path).map { (path, $0) }
            let root = RestoreRoot(path: path, origin: .freshDevice, descriptor: descriptor, savedTime: saved)
            root.lock = lock
            root.lockFileCreated = lockFileCreated
            root.recovered = recovered
            return root
        } catch {
            if let deviceLocalTime = lockFileCreated { removeLockFile(path, deviceLocalTime: deviceLocalTime) }
            try? lock.release()
            throw error
        }
    }

    /// Takes the lock at `path`, waiting for another devicectl that holds it; polls `interruption` while it
    /// waits (a blocking flock would sit out SIGINT: the handler only records it).
    private static func waitForLock(_ path: String, interruption: () -> Int32?) throws -> FileLock {
        while true {
            do {
                return try FileLock(path: path, wait: false)
            } catch {
                guard error.code == EWOULDBLOCK else { throw error }
            }
            if let signal = interruption() { throw RestoreError.interrupted(signal: signal) }
            usleep(20_000)
        }
    }

    private static func modificationTime(_ path: String) throws -> timespec? {
        try FileStatus.ifExists(path).map { timespec(tv_sec: Int($0.mtimeSeconds), tv_nsec: Int($0.mtimeNanoseconds)) }
    }

    /// Removes a lock file this restore created and puts DeviceLocal's mtime back.
    private static func removeLockFile(_ path: String, deviceLocalTime: timespec) {
        unlink("\(path)/\(DeviceLayout.lock)")
        var times = [timespec(tv_sec: 0, tv_nsec: CSUPPORT_UTIME_OMIT), deviceLocalTime]
        _ = utimensat(AT_FDCWD, "\(path)/\(DeviceLayout.deviceLocal)", &times, AT_SYMLINK_NOFOLLOW)
    }

    /// Puts ROOT back as it was found: removes what the restore initialised and resets the directory mtime
    /// the staging directory changed (best effort).
    /// The device lock is released last: a restore waiting for it must not find a half-removed device (it sees
    /// the lock file gone or replaced and looks again).
    func undo() {
        if origin == .freshDevice, let deviceLocalTime = lockFileCreated {
            RestoreRoot.removeLockFile(path, deviceLocalTime: deviceLocalTime)
        }
        RestoreRoot.undo(path: path, origin: origin, saved: savedTime)
        unlock()
    }

    private static func undo(path: String, origin: Origin, saved: (path: String, mtime: timespec)?) {
        defer {
            if let (directory, mtime) = saved {
                var times = [timespec(tv_sec: 0, tv_nsec: CSUPPORT_UTIME_OMIT), mtime]
                _ = utimensat(AT_FDCWD, directory, &times, AT_SYMLINK_NOFOLLOW)
            }
        }
        switch origin {
        case .freshDevice:
            return
        case .created:
            let parent = (path as NSString).deletingLastPathComponent
            let name = Array((path as NSString).lastPathComponent.utf8)
            guard let fd = try? FileDescriptor.open(parent, flags: O_RDONLY | O_DIRECTORY) else { return }
            try? TreeRemoval.remove(name, in: fd.rawValue, display: path)
        case .emptyDirectory:
            guard let fd = try? FileDescriptor.open(path, flags: O_RDONLY | O_DIRECTORY),
                let entries = try? DirectoryEntries.list(fd.rawValue, display: path)
            else { return }
            for entry in entries {
                try? TreeRemoval.remove(
                    entry.name, in: fd.rawValue, display: "\(path)/\(String(decoding: entry.name, as: UTF8.self))")
            }
        }
    }
}
