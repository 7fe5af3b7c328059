// BackupError: why a backup (or a dry run) stopped; every case names the path involved.
import Glibc
import MobileSyncKit
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
    /// A MobileSync backup's database, keys or plists could not be written.
    case format(MobileSyncError)
    /// SIGINT or SIGTERM arrived while a MobileSync backup was written; its temporary directory was removed.
    case interrupted(signal: Int32)
    /// SHA-256 could not be set up.
    case digest(DigestError)
    /// The output is unusable (a terminal, the writer stopped ...), said in words.
    case output(String)
    /// An error devicectl does not expect where it arose (reading back a record it has just written), kept as
    /// thrown.
    case internalError(any Error)
    /// `-o ARCHIVE` names something an archive cannot be written to (a directory, a block device, a name in a
    /// missing directory ...). `archive` is the user's path (and where its symlinks led); `cause` the failed call.
    case unwritable(archive: String, reason: String, cause: SystemError?)

    public var description: String {
        switch self {
        case .rootNotDirectory(let root, let error):
            if let error { return "cannot back up \(root): \(error.phrase)" }
            return "cannot back up \(root): not a directory"
        case .unreadable(let path, let error):
            return "cannot read \(path): \(error.phrase); the backup was not written"
        case .changed(let path, let detail):
            return "\(path) changed while it was being read (\(detail)); the backup was not written"
        case .system(let error):
            return error.sentence
        case .archive(let error):
            // The libarchive call is an internal name: the user reads what could not be written and why.
            return error.entry.isEmpty
                ? "cannot write the archive: \(error.message)"
                : "cannot write the archive (at \(error.entry)): \(error.message)"
        case .format(let error):
            return error.description
        case .interrupted(let signal):
            let name = ProcessSignals.name(of: signal)
            return "interrupted by \(name); the backup did not complete"
        case .digest(let error):
            return error.description
        case .output(let message):
            return message
        case .internalError(let cause):
            return "internal error: \(cause)"
        case .unwritable(let archive, let reason, _):
            return "cannot write the archive to \(archive): \(reason)"
        }
    }
}
