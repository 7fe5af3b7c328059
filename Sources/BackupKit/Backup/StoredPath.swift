// StoredPath: one path a backup stores (or a dry run would store), as `backup -v` lists it.
import SystemKit

/// An entry the backup archives: its path relative to ROOT, as its member is named, and what it is.
/// Reported in archive order, only when the caller asks (`BackupEngine.backup(_:progress:warning:stored:)`).
public struct StoredPath: Sendable, Equatable {
    public let path: String
    /// What it is; a hard link to a file stored earlier is `.regular`.
    public let kind: FileKind
}
