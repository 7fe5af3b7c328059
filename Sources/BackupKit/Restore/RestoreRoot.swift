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

    private init(path: String, origin: Origin, descriptor: FileDescriptor, savedTime: (path: String, mtime: timespec)?) {
        self.path = path
        self.origin = origin
        self.descriptor = descriptor
        self.savedTime = savedTime
    }

    /// Takes the device's lock (`DeviceLocal/lock`), waiting for any other devicectl writing to this device.
    func lockDevice() throws {
        let lockPath = "\(path)/\(DeviceLayout.lock)"
        if try FileStatus.ifExists(lockPath) == nil, let status = try FileStatus.ifExists("\(path)/\(DeviceLayout.deviceLocal)") {
            lockFileCreated = timespec(tv_sec: Int(status.mtimeSeconds), tv_nsec: Int(status.mtimeNanoseconds))
        }
        lock = try FileLock(path: lockPath, wait: true)
    }

    /// Releases the device lock.
    func unlock() {
        try? lock?.release()
        lock = nil
    }

    /// Checks `path` and opens it; initialises a new device when it is absent or an empty directory.
    /// Throws `RestoreError.rootNotFresh` / `.rootNotDirectory` without changing anything otherwise.
    static func prepare(_ given: String, now: Date) throws -> RestoreRoot {
        var path = Device.assembling(at: given).root
        if let status = try FileStatus.ifExists(path), status.kind == .symlink, let resolved = realpath(path, nil) {
            path = String(cString: resolved)
            free(resolved)
        }
        let origin: Origin
        let parent = (path as NSString).deletingLastPathComponent
        if let status = try FileStatus.ifExists(path) {
            guard status.kind == .directory else { throw RestoreError.rootNotDirectory(path) }
            if Device.isDevice(at: path) {
                guard try Device.open(path).isFresh() else { throw RestoreError.rootNotFresh(path) }
                origin = .freshDevice
            } else {
                let fd = try FileDescriptor.open(path, flags: O_RDONLY | O_DIRECTORY)
                guard try DirectoryEntries.list(fd.rawValue, display: path).isEmpty else { throw RestoreError.rootNotFresh(path) }
                origin = .emptyDirectory
            }
        } else {
            guard try FileStatus.ifExists(parent)?.kind == .directory else {
                throw SystemError("restore", path: parent, code: ENOENT)
            }
            origin = .created
        }
        let timed = origin == .created ? parent : path
        let saved = try FileStatus.ifExists(timed).map { (timed, timespec(tv_sec: Int($0.mtimeSeconds), tv_nsec: Int($0.mtimeNanoseconds))) }
        if origin != .freshDevice {
            do {
                try Device.initialize(path, now: now)
            } catch {
                RestoreRoot.undo(path: path, origin: origin, saved: saved)
                throw error
            }
        }
        do {
            let descriptor = try FileDescriptor.open(path, flags: O_RDONLY | O_DIRECTORY)
            return RestoreRoot(path: path, origin: origin, descriptor: descriptor, savedTime: saved)
        } catch {
            RestoreRoot.undo(path: path, origin: origin, saved: saved)
            throw error
        }
    }

    /// Puts ROOT back as it was found: removes what the restore initialised and resets the directory mtime
    /// the staging directory changed (best effort).
    func undo() {
        unlock()
        if origin == .freshDevice, let deviceLocalTime = lockFileCreated {
            unlink("\(path)/\(DeviceLayout.lock)")
            var times = [timespec(tv_sec: 0, tv_nsec: CSUPPORT_UTIME_OMIT), deviceLocalTime]
            _ = utimensat(AT_FDCWD, "\(path)/\(DeviceLayout.deviceLocal)", &times, AT_SYMLINK_NOFOLLOW)
        }
        RestoreRoot.undo(path: path, origin: origin, saved: savedTime)
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
                let entries = try? DirectoryEntries.list(fd.rawValue, display: path) else { return }
            for entry in entries {
                try? TreeRemoval.remove(entry.name, in: fd.rawValue, display: "\(path)/\(String(decoding: entry.name, as: UTF8.self))")
            }
        }
    }
}
