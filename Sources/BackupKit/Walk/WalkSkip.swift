// WalkSkip: why the walker passes over an entry that is not excluded from backup.
import SystemKit

/// Why the walker passes over an entry without it being excluded from backup.
enum WalkSkip: Sendable {
    /// A socket, FIFO or device node: tar has nothing to store for it.
    case special(FileKind)
    /// The name is not valid UTF-8, so the archive and manifest could not name it faithfully.
    case invalidName
    /// A file named like the manifest at the root would be confused with it.
    case reservedName
    /// A restore's staging directory at the root (`.devicectl-restore-*`, left by a killed restore): restore
    /// refuses the name, so archiving it would make the whole archive unrestorable.
    case restoreStaging
    /// The archive being written (it lies inside ROOT).
    case ownArchive
    /// The archive this backup replaces (`-o` names a file inside ROOT): GNU tar's "file is the archive; not
    /// dumped".
    case replacedArchive
    /// A directory on another file system than ROOT's (`--one-file-system`): stored, its contents not walked.
    case otherFileSystem
}
