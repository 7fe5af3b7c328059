// BackupError: why a backup (or a dry run) stopped; every case names the path involved.
import SystemKit
import TarKit

/// A backup failure. The archive is never left half-written: the temporary file is removed.
public enum BackupError: Error, CustomStringConvertible, Sendable {
    /// ROOT is missing or not a directory.
    case rootNotDirectory(String, SystemError?)
    /// An entry that is not excluded could not be read (or vanished after it was listed).
    case unreadable(path: String, SystemError)
    /// A file changed while it was being read: archiving it would store torn data.
    case changed(path: String, detail: String)
    /// A system call on the output or the walk failed.
    case system(SystemError)
    /// libarchive refused to write.
    case archive(ArchiveWriterError)
    /// SHA-256 could not be set up.
    case digest(DigestError)
    /// The output is unusable (a terminal, the writer stopped ...).
    case output(String)
    /// `-o ARCHIVE` names something an archive cannot be written to (a directory, a block device, a name in a
    /// missing directory ...). `archive` is the user's path (and where its symlinks led); `cause` the failed call.
    case unwritable(archive: String, reason: String, cause: SystemError?)

    public var description: String {
        switch self {
        case .rootNotDirectory(let root, let error):
            if let error { return "cannot back up \(root): \(error.call): \(error.reason)" }
            return "cannot back up \(root): not a directory"
        case .unreadable(let path, let error):
            return "cannot read \(path): \(error.call): \(error.reason); the backup was not written"
        case .changed(let path, let detail):
            return "\(path) changed while it was being read (\(detail)); the backup was not written"
        case .system(let error):
            return error.description
        case .archive(let error):
            return error.description
        case .digest(let error):
            return error.description
        case .output(let message):
            return message
        case .unwritable(let archive, let reason, _):
            return "cannot write the archive to \(archive): \(reason)"
        }
    }
}
