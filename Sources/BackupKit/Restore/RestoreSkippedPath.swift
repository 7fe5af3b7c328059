// RestoreSkippedPath: a path of the target device a restore did not restore over, and why.

/// A path the target device marks excluded from backup: the archive's members at and below it were checked
/// but not restored, and the device's own directory (with its flag) was kept.
public struct RestoreSkippedPath: Sendable, Equatable {
    /// Relative to ROOT.
    public let path: String
    /// The attribute that marks it (`apple-exclude-xattr` or `ios-mobilebackup-xattr`).
    public let reason: ExclusionReason
    /// Archive members at or below the path that were not restored.
    public let entries: UInt64

    public init(path: String, reason: ExclusionReason, entries: UInt64) {
        self.path = path
        self.reason = reason
        self.entries = entries
    }
}
