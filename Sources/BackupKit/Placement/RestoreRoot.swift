// RestoreRoot: the destination as the restore found it (fresh device, absent, or empty) and how to put it back.
import DeviceKit
import Foundation
import Glibc
import SystemKit

/// ROOT, checked and (when absent or empty) initialised as a new device; `undo` returns it to how it was.
final class RestoreRoot {
    enum Origin: Equatable {
        /// A device made by `devicectl init` with no apps and no user data.
        case freshDevice
        /// ROOT did not exist: the restore builds the device beside it (`RestoreSibling`) and renames it onto ROOT.
        case created
        /// ROOT was an empty directory: the restore initialised it.
        case emptyDirectory
    }

    /// Where the restore builds the device: ROOT, or its sibling when ROOT is absent.
    let path: String
    let origin: Origin
    let descriptor: SharedDescriptor
    /// The mtime of the directory whose entries the restore changes (ROOT, or its parent when ROOT is created),
    /// put back by `undo`: creating and removing the staging directory must leave no trace.
    let savedTime: (path: String, mtime: timespec)?
    /// The device lock, held for the whole restore (one writer per device).
    private var lock: FileLock?
    /// The lock file did not exist before (then `undo` removes it and resets DeviceLocal's mtime).
    private var lockFileCreated: timespec?
    /// Staging directories of killed restores that `prepare` removed (their half-made moves rolled back).
    private(set) var recovered: [String] = []
    /// When ROOT is absent: the directory beside it that becomes ROOT in `commit`.
    private var sibling: RestoreSibling?

    private init(path: String, origin: Origin, descriptor: SharedDescriptor, savedTime: (path: String, mtime: timespec)?)
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
    /// `interruption` is polled while waiting for the device lock (SIGINT must not wait for another devicectl);
    /// `waiting` is called once before that wait.
    static func prepare(
        _ given: String, now: Date, interruption: () -> Int32? = { ProcessSignals.received },
        waiting: () -> Void = {}
    ) throws -> RestoreRoot {
        let path = try RootPath.resolve(given)
        try removeStaleSiblings(of: path)
        while true {
            if let root = try attempt(path, now: now, interruption: interruption, waiting: waiting) { return root }
        }
    }

    /// Removes the siblings of ROOT that killed restores onto an absent ROOT left.
    private static func removeStaleSiblings(of path: String) throws {
        let parent = (path as NSString).deletingLastPathComponent
        guard let parentDirectory = try? FileDescriptor.open(parent, flags: O_RDONLY | O_DIRECTORY) else { return }
        let name = Array((path as NSString).lastPathComponent.utf8)
        try RestoreSibling.removeStale(in: parentDirectory, parentPath: parent, rootName: name)
    }

    /// Makes ROOT what the restore built: when ROOT was absent, renames the finished sibling onto it (until then a
    /// kill leaves ROOT absent); otherwise the restore already worked in ROOT. The last step of a restore.
    func commit() throws {
        guard let sibling else { return }
        try sibling.moveOntoRoot(umask: RestoreSession.currentUmask())
        self.sibling = nil
    }

    /// One look at ROOT; nil when another restore changed it meanwhile (look again).
    private static func attempt(
        _ path: String, now: Date, interruption: () -> Int32?, waiting: () -> Void
    ) throws -> RestoreRoot? {
        guard let status = try FileStatus.ifExists(path) else { return try buildBeside(path, now: now) }
        guard status.kind == .directory else { throw RestoreError.rootNotDirectory(path) }
        if Device.isDevice(at: path) {
            return try openFreshDevice(path, interruption: interruption, waiting: waiting)
        }
        return try initialise(path, origin: .emptyDirectory, saved: nil, now: now)
    }

    /// ROOT is absent: a new device in a sibling of it, locked (nobody else knows it yet).
    private static func buildBeside(_ path: String, now: Date) throws -> RestoreRoot {
        let parent = (path as NSString).deletingLastPathComponent
        guard let parentStatus = try FileStatus.ifExists(parent) else {
            throw RestoreError.rootParentMissing(root: path, parent: parent)
        }
        guard parentStatus.kind == .directory else { throw SystemError("restore", path: parent, code: ENOTDIR) }
        let parentDirectory = try FileDescriptor.open(parent, flags: O_RDONLY | O_DIRECTORY)
        let saved = try modificationTime(parent).map { (parent, $0) }
        let sibling = try RestoreSibling(
            parent: parentDirectory, parentPath: parent, rootName: Array((path as NSString).lastPathComponent.utf8))
        do {
            try Device.initialize(sibling.path, now: now)
            let root = RestoreRoot(
                path: sibling.path, origin: .created, descriptor: sibling.directory, savedTime: saved)
            root.lock = try lockFile(in: sibling.path, wait: false)
            root.sibling = sibling
            return root
        } catch {
            RestoreRoot.undo(path: sibling.path, origin: .created, saved: saved)
            throw error
        }
    }

    /// Initialises the empty directory `path` as a new device, under an exclusive `flock` of the directory
    /// (restores initialising the same directory take turns); nil when another restore initialised it first.
    private static func initialise(
        _ path: String, origin: Origin, saved given: (path: String, mtime: timespec)?, now: Date
    ) throws -> RestoreRoot? {
        let descriptor = SharedDescriptor(try FileDescriptor.open(path, flags: O_RDONLY | O_DIRECTORY))
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
            lock = try lockFile(in: path, wait: false)
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
    private static func openFreshDevice(
        _ path: String, interruption: () -> Int32?, waiting: () -> Void
    ) throws -> RestoreRoot? {
        let contained = try ContainedRoot(opening: path)
        var lockFileCreated: timespec?
        if try contained.status(DeviceLayout.lock) == nil {
            lockFileCreated = try contained.status(DeviceLayout.deviceLocal).map(Self.modificationTime)
        }
        let lock: FileLock
        do {
            lock = try waitForLock(path, interruption: interruption, waiting: waiting)
        } catch {
            if let deviceLocalTime = lockFileCreated { removeLockFile(path, deviceLocalTime: deviceLocalTime) }
            throw error
        }
        guard lock.isCurrent(DeviceLayout.lock, in: contained) else {
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
            let root = RestoreRoot(
                path: path, origin: .freshDevice, descriptor: SharedDescriptor(descriptor), savedTime: saved)
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

    /// Takes the device lock of ROOT at `path`, through a contained handle on ROOT (a `DeviceLocal` or lock file
    /// planted as a symlink or FIFO is refused, never followed); without `wait`, EWOULDBLOCK while another holds it.
    private static func lockFile(in path: String, wait: Bool) throws(SystemError) -> FileLock {
        let file = try ContainedRoot(opening: path).openRegular(DeviceLayout.lock, flags: O_RDWR | O_CREAT)
        return try FileLock(file: file, wait: wait)
    }

    /// Takes the device lock of ROOT at `path`, waiting for another devicectl that holds it; polls `interruption` while it
    /// waits (a blocking flock would sit out SIGINT: the handler only records it); calls `waiting` before the
    /// first wait.
    private static func waitForLock(
        _ path: String, interruption: () -> Int32?, waiting: () -> Void
    ) throws -> FileLock {
        var waited = false
        while true {
            do {
                return try lockFile(in: path, wait: false)
            } catch {
                guard error.code == EWOULDBLOCK else { throw error }
            }
            if !waited {
                waiting()
                waited = true
            }
            if let signal = interruption() { throw RestoreError.interrupted(signal: signal) }
            usleep(20_000)
        }
    }

    private static func modificationTime(_ path: String) throws -> timespec? {
        try FileStatus.ifExists(path).map(modificationTime)
    }

    private static func modificationTime(_ status: FileStatus) -> timespec {
        timespec(tv_sec: Int(status.mtimeSeconds), tv_nsec: Int(status.mtimeNanoseconds))
    }

    /// Removes a lock file this restore created and puts DeviceLocal's mtime back.
    private static func removeLockFile(_ path: String, deviceLocalTime: timespec) {
        guard let contained = try? ContainedRoot(opening: path) else { return }
        try? contained.remove(DeviceLayout.lock)
        guard let deviceLocal = try? contained.openDirectory(DeviceLayout.deviceLocal) else { return }
        try? ModificationTime.set(deviceLocalTime, descriptor: deviceLocal.rawValue, path: "")
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
                try? ModificationTime.set(mtime, name: directory, in: AT_FDCWD, path: directory)
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
