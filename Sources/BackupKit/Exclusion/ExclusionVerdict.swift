// ExclusionVerdict: what `exclude check` answers for one path.

/// The answer for one path: its own reasons, the outermost skipped ancestor (a backup never walks
/// below it), and the enclosing device root whose iOS rules applied.
public struct ExclusionVerdict: Sendable, Equatable {
    /// A skipped ancestor and its reasons.
    public struct Ancestor: Sendable, Equatable {
        public let path: String
        public let reasons: [ExclusionReason]
    }

    /// The path as given.
    public let path: String
    /// The absolute path checked (parent directories resolved, the last component not followed).
    public let absolutePath: String
    /// Every reason, in canonical order; `excluded-ancestor` when `ancestor` is set.
    public let reasons: [ExclusionReason]
    public let ancestor: Ancestor?
    /// The device root enclosing the path (or the path itself), when there is one.
    public let deviceRoot: String?
    /// The engine whose rules were applied.
    public let engine: AppleBackupEngine

    /// Whether a backup skips the path.
    public var excluded: Bool { !reasons.isEmpty }
}
