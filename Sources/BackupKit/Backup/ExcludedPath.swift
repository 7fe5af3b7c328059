// ExcludedPath: one path a backup skips, as `--dry-run` lists it.
import SystemKit

/// A skipped entry: its path relative to ROOT and every reason, in canonical order.
public struct ExcludedPath: Sendable, Equatable {
    public let path: String
    public let reasons: [ExclusionReason]
    /// What it is (a skipped directory's contents are not walked).
    public let kind: FileKind
    /// Its size for a regular file, else 0.
    public let bytes: UInt64
}
