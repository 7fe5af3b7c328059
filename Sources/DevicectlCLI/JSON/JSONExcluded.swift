// JSONExcluded: what a backup skipped, in total and by reason, in backup, backup --dry-run and list.

/// `{"entries", "directories", "bytes", "byReason": {REASON: {"entries", "directories", "bytes"}}}`. An entry
/// is a skipped file, directory or link; `bytes` counts skipped files' data only (a skipped directory is never
/// walked); `directories` is null where it is not recorded (an archive's manifest counts entries only).
struct JSONExcluded: Codable, Equatable, Sendable {
    /// One reason's share.
    struct Share: Codable, Equatable, Sendable {
        var entries: UInt64
        @OrNull var directories: UInt64?
        var bytes: UInt64
    }

    var entries: UInt64
    @OrNull var directories: UInt64?
    var bytes: UInt64
    var byReason: [String: Share]
}
