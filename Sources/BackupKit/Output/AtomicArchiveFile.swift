// AtomicArchiveFile: the archive is written to a temporary file beside its destination and renamed
// into place only once complete; failures and SIGINT/SIGTERM/SIGHUP remove the temporary file.
import Glibc
import SystemKit

/// A temporary file `.NAME.devicectl-tmp-<pid>` in the destination's directory, locked with `flock`
/// from its creation until it has been renamed. `commit()` fsyncs it, renames it over the destination and
/// fsyncs the directory; anything else removes it. Temporary files left by a killed run (unlocked) are
/// removed on the next backup to the same destination; a locked one means another devicectl is writing
/// that archive right now, and the backup refuses to start (one writer per archive path). Looking for
/// temporary files and creating one happen under a short `flock` of the directory, so two backups
/// starting together cannot both miss each other.
final class AtomicArchiveFile {
    let destination: String
    let temporaryPath: String
    /// The temporary file, open (and locked) until it is renamed into place or removed.
    private var file: FileDescriptor?
    /// (device, inode) of the temporary file, so a walk of a tree containing it can pass over it.
    let identity: (UInt64, UInt64)
    /// The destination's directory (where the temporary file lives).
    let directory: String
    private var finished = false

    /// The raw descriptor to write the archive to; -1 once closed.
    var descriptor: Int32 { file?.rawValue ?? -1 }

    /// Creates and locks the temporary file (after removing stale ones) and arms the signal cleanup.
    init(destination: String) throws(BackupError) {
        self.destination = destination
        let slash = destination.lastIndex(of: "/")
        directory = slash.map { $0 == destination.startIndex ? "/" : String(destination[..<$0]) } ?? "."
        let base = slash.map { String(destination[destination.index(after: $0)...]) } ?? destination
        guard !base.isEmpty, base != ".", base != ".." else {
            throw BackupError.output("cannot write the archive to \(destination): not a file name")
        }
        if let status = try? FileStatus.of(destination), status.kind == .directory {
            throw BackupError.output("cannot write the archive to \(destination): it is a directory")
        }
        let prefix = ".\(base).devicectl-tmp-"
        let parent = slash == nil ? "" : (directory == "/" ? "/" : directory + "/")
        temporaryPath = parent + prefix + String(getpid())
        // The directory lock (best effort: an unreadable directory cannot be opened) is released when
        // `directoryLock` is closed, at the end of this initialiser.
        let directoryLock = FileDescriptor(
            rawValue: open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC), path: directory)
        if directoryLock.rawValue >= 0 { _ = flock(directoryLock.rawValue, LOCK_EX) }
        if let writer = Self.removeStale(in: directory, prefix: prefix) {
            throw BackupError.output(
                "another devicectl (pid \(writer)) is writing \(destination) right now; not started, nothing was written")
        }
        do { try ProcessSignals.terminate() } catch { throw BackupError.system(error) }
        // Armed before the file exists: a signal between open and registration cannot leave it behind.
        ProcessSignals.register(temporaryPath)
        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else {
            let failure = SystemError("open", path: temporaryPath)
            ProcessSignals.clear()
            throw BackupError.unwritable(
                archive: destination, reason: "cannot create a file in \(directory): \(failure.phrase)", cause: failure)
        }
        file = FileDescriptor(rawValue: fd, path: temporaryPath)
        _ = flock(fd, LOCK_EX | LOCK_NB)
        var status = stat()
        fstat(fd, &status)
        identity = (UInt64(status.st_dev), UInt64(status.st_ino))
    }

    deinit {
        if !finished { discard() }
    }

    /// Flushes the data to disk, renames the file into place and flushes the directory entry. The file
    /// stays open (and locked) until it has been renamed: unlocked, another backup would take it for a
    /// killed run's leftover and remove it. Only a regular file (or nothing) at the destination is replaced:
    /// one that became a directory, device, FIFO or symlink while the backup ran is left alone.
    func commit() throws(BackupError) {
        var status = stat()
        if lstat(destination, &status) == 0 && status.st_mode & S_IFMT != S_IFREG {
            discard()
            throw BackupError.unwritable(
                archive: destination, reason: "it became a \(Self.kindName(status.st_mode)) while the backup ran; "
                    + "it was left as it is and the archive was not written", cause: nil)
        }
        do {
            try SystemError.check("fsync", path: temporaryPath) { fsync(descriptor) }
            try SystemError.check("rename", path: "\(temporaryPath) -> \(destination)") {
                rename(temporaryPath, destination)
            }
            // Closed under the destination's name, which the file has now.
            if let written = file.take() { try FileDescriptor(rawValue: written.take(), path: destination).close() }
        } catch {
            discard()
            throw BackupError.system(error)
        }
        finished = true
        ProcessSignals.clear()
        let opened = FileDescriptor(rawValue: open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC), path: directory)
        if opened.rawValue >= 0 {
            let fd = opened.rawValue
            if fsync(fd) != 0 && errno != EINVAL {
                throw BackupError.system(SystemError("fsync", path: directory))
            }
        }
    }

    /// Removes the temporary file (idempotent).
    func discard() {
        guard !finished else { return }
        finished = true
        ProcessSignals.clear()
        unlink(temporaryPath)
        file = nil
    }

    private static func kindName(_ mode: UInt32) -> String {
        switch FileKind(mode: mode) {
        case .directory: "directory"
        case .symlink: "symbolic link"
        case let kind: ArchivingVisitor.kindName(kind)
        }
    }

    /// Removes `prefix*` files in `directory` that no live backup holds locked. Returns the pid (from the
    /// name) of a live backup writing the same destination, if there is one.
    private static func removeStale(in directory: String, prefix: String) -> String? {
        let opened = FileDescriptor(rawValue: open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC), path: directory)
        guard opened.rawValue >= 0 else { return nil }
        let fd = opened.rawValue
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 32 * 1024, alignment: 8)
        defer { scratch.deallocate() }
        guard let listing = try? DirectoryListing.read(directory: fd, path: directory, scratch: scratch) else { return nil }
        let wanted = Array(prefix.utf8)
        var live: String?
        for index in 0..<listing.count {
            listing.withName(at: index) { name, cName in
                guard name.starts(with: wanted) else { return }
                let stale = FileDescriptor(
                    rawValue: openat(fd, cName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), path: "")
                guard stale.rawValue >= 0 else { return }
                var status = stat()
                guard fstat(stale.rawValue, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return }
                if flock(stale.rawValue, LOCK_EX | LOCK_NB) == 0 {
                    unlinkat(fd, cName, 0)
                } else if errno == EWOULDBLOCK {
                    live = String(decoding: name.dropFirst(wanted.count), as: UTF8.self)
                }
            }
        }
        return live
    }
}
