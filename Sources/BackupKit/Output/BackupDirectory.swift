// BackupDirectory: a MobileSync backup is written into a temporary sibling directory and renamed into place
// only once complete; a failure or an interruption removes it.
import Glibc
import SystemKit

/// The temporary directory `.NAME.devicectl-tmp-<pid>` beside the destination DIR (0700), locked with `flock`
/// from its creation until it is renamed. `commit()` flushes the file system (`syncfs`) and renames it onto
/// DIR: with `RENAME_NOREPLACE` when DIR is absent, else by exchanging the two and removing the old backup, so
/// DIR is at every moment either the old backup or the new one. Only an empty directory or a MobileSync backup
/// (a directory holding `Manifest.plist` or `Status.plist`) is ever replaced. Temporary directories a killed
/// run left (unlocked) are removed by the next backup to the same DIR; a locked one means another devicectl is
/// writing DIR, and the backup refuses to start. A temporary directory never holds `Status.plist` before the
/// backup is complete, and its name is hidden: nothing half-written looks like a backup.
final class BackupDirectory {
    let destination: String
    /// The directory being written, open (and locked) until `commit()` or `discard()`.
    private var temporary: FileDescriptor?
    /// (device, inode) of the temporary directory and of the backup it replaces, for a walk of a tree holding them.
    private(set) var identity: (UInt64, UInt64) = (0, 0)
    private(set) var replaced: (UInt64, UInt64)?
    /// The destination's parent directory, where the temporary directory lives.
    let parentPath: String
    private let parentDirectory: FileDescriptor
    private let base: String
    private let temporaryName: String
    private var finished = false

    /// The raw descriptor of the directory being written; -1 once committed or discarded.
    var descriptor: Int32 { temporary?.rawValue ?? -1 }
    /// The raw descriptor of the destination's parent (borrowed: open as long as this).
    private var parent: Int32 { parentDirectory.rawValue }

    init(destination: String) throws(BackupError) {
        self.destination = destination
        let trimmed = destination.count > 1 && destination.hasSuffix("/") ? String(destination.dropLast()) : destination
        let slash = trimmed.lastIndex(of: "/")
        parentPath = slash.map { $0 == trimmed.startIndex ? "/" : String(trimmed[..<$0]) } ?? "."
        base = slash.map { String(trimmed[trimmed.index(after: $0)...]) } ?? trimmed
        guard !base.isEmpty, base != ".", base != ".." else {
            throw BackupError.output("cannot write the backup to \(destination): not a directory name")
        }
        temporaryName = ".\(base).devicectl-tmp-\(getpid())"
        let opened = open(parentPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard opened >= 0 else {
            let failure = SystemError("open", path: parentPath)
            throw BackupError.unwritable(
                archive: destination, reason: "cannot open its directory \(parentPath): \(failure.phrase)", cause: failure)
        }
        parentDirectory = FileDescriptor(rawValue: opened, path: parentPath)
        do {
            replaced = try Self.replaceable(base, in: parent, destination: destination)
            // Looking for leftovers and creating the directory happen under a lock of the parent, so two backups
            // starting together cannot both miss each other.
            _ = flock(parent, LOCK_EX)
            defer { _ = flock(parent, LOCK_UN) }
            if let writer = try removeStale() {
                throw BackupError.output(
                    "another devicectl (pid \(writer)) is writing \(destination) right now; not started, nothing was written")
            }
            guard mkdirat(parent, temporaryName, 0o700) == 0 else {
                let failure = SystemError("mkdirat", path: "\(parentPath)/\(temporaryName)")
                throw BackupError.unwritable(
                    archive: destination, reason: "cannot create a directory in \(parentPath): \(failure.phrase)",
                    cause: failure)
            }
            let fd = openat(parent, temporaryName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { throw BackupError.system(SystemError("openat", path: temporaryPath)) }
            temporary = FileDescriptor(rawValue: fd, path: temporaryPath)
            _ = flock(fd, LOCK_EX | LOCK_NB)
            var status = stat()
            fstat(fd, &status)
            identity = (UInt64(status.st_dev), UInt64(status.st_ino))
        } catch {
            discard()  // the parent is closed as this goes
            throw error as! BackupError
        }
    }

    deinit {
        if !finished { discard() }
    }

    /// The temporary directory's path, for messages.
    var temporaryPath: String { "\(parentPath)/\(temporaryName)" }

    /// Flushes everything written and puts the backup at DIR (see the type's description).
    func commit() throws(BackupError) {
        do {
            try SystemError.check("syncfs", path: temporaryPath) { Kernel.syncfs(descriptor) }
            let current = try Self.replaceable(base, in: parent, destination: destination)
            let mode: Kernel.RenameMode = current == nil ? .noReplace : .exchange
            try SystemError.check("renameat2", path: "\(temporaryPath) -> \(destination)") {
                Kernel.renameat2(parent, temporaryName, parent, base, mode)
            }
            finished = true
            temporary = nil
            if current != nil {
                // The old backup now has the temporary name (and no lock): a kill here leaves it for the next run.
                try? TreeRemoval.remove(Array(temporaryName.utf8), in: parent, display: temporaryPath)
            }
            if fsync(parent) != 0 && errno != EINVAL { throw SystemError("fsync", path: parentPath) }
        } catch let error as SystemError {
            discard()
            throw BackupError.system(error)
        } catch {
            discard()
            throw error as! BackupError
        }
    }

    /// Removes the temporary directory (idempotent).
    func discard() {
        guard !finished else { return }
        finished = true
        if temporary != nil {
            try? TreeRemoval.remove(Array(temporaryName.utf8), in: parent, display: temporaryPath)
            temporary = nil
        }
    }

    /// (device, inode) of the backup at `name` that a new one may replace, nil when there is none; refuses
    /// anything else (a file, a symlink, a directory that holds something but no backup).
    private static func replaceable(
        _ name: String, in parent: Int32, destination: String
    ) throws(BackupError) -> (UInt64, UInt64)? {
        var status = stat()
        guard fstatat(parent, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else {
            if errno == ENOENT { return nil }
            let failure = SystemError("fstatat", path: destination)
            throw BackupError.unwritable(archive: destination, reason: failure.reason, cause: failure)
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            let kind = status.st_mode & S_IFMT == S_IFLNK ? "a symbolic link" : "not a directory"
            throw BackupError.unwritable(
                archive: destination, reason: "it exists and is \(kind); a MobileSync backup is a directory", cause: nil)
        }
        let identity = (UInt64(status.st_dev), UInt64(status.st_ino))
        let fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else {
            let failure = SystemError("openat", path: destination)
            throw BackupError.unwritable(archive: destination, reason: failure.reason, cause: failure)
        }
        let entries: [DirectoryEntry]
        do {
            let directory = FileDescriptor(rawValue: fd, path: destination)  // closed at the end of this block
            entries = try DirectoryEntries.list(directory.rawValue, display: destination)
        } catch {
            throw BackupError.unwritable(archive: destination, reason: error.phrase, cause: error)
        }
        let names = Set(entries.map { String(decoding: $0.name, as: UTF8.self) })
        guard names.isEmpty || names.contains("Manifest.plist") || names.contains("Status.plist") else {
            throw BackupError.unwritable(
                archive: destination,
                reason: "it is a directory that holds no MobileSync backup; it was left as it is (choose an empty or new directory)",
                cause: nil)
        }
        return identity
    }

    /// Removes `.NAME.devicectl-tmp-*` directories no live backup holds locked; returns the pid (from the name)
    /// of a live backup writing the same destination.
    private func removeStale() throws(BackupError) -> String? {
        let prefix = Array(".\(base).devicectl-tmp-".utf8)
        let entries: [DirectoryEntry]
        do { entries = try DirectoryEntries.list(parent, display: parentPath) } catch { return nil }
        for entry in entries where entry.name.starts(with: prefix) {
            let stale = FileDescriptor(
                rawValue: CName(entry.name).withPointer {
                    openat(parent, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                }, path: "")
            guard stale.rawValue >= 0 else { continue }
            if flock(stale.rawValue, LOCK_EX | LOCK_NB) == 0 {
                let name = "\(parentPath)/\(String(decoding: entry.name, as: UTF8.self))"
                try? TreeRemoval.remove(entry.name, in: parent, display: name)
            } else if errno == EWOULDBLOCK {
                return String(decoding: entry.name.dropFirst(prefix.count), as: UTF8.self)
            }
        }
        return nil
    }
}
