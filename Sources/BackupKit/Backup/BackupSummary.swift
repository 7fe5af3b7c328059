// BackupSummary: what a backup (or dry run) stored and skipped, for the summary and --json.

/// The outcome of a backup or a dry run.
public struct BackupSummary: Sendable, Equatable {
    /// What was stored: regular files with their data (one manifest line each), their bytes, directories,
    /// symbolic links, and names stored as links to an earlier member.
    public var counts: EntryCounts
    /// Skipped entries (an excluded directory counts once: its contents are never walked).
    public var excluded: Manifest.Excluded
    /// How many of the skipped entries are directories: their bytes are not measured (never walked), so
    /// `excluded.bytes` counts skipped files only.
    public var excludedDirectories: UInt64
    /// Skipped directories by reason (an entry counts under each of its reasons).
    public var excludedDirectoriesByReason: [String: UInt64]
    /// The archive's size in bytes (0 for a dry run).
    public var archiveBytes: UInt64
    /// Wall time.
    public var seconds: Double
    /// Entries passed over with a warning (sockets, FIFOs, devices, undecodable names).
    public var warnings: Int
    /// Whether the tree was a device root (iOS rules applied).
    public var deviceRoot: Bool
    /// Files the reading thread hashed (`HashPlacement.byBacklog` while the formatting thread was behind).
    var filesHashedByReader: UInt64 = 0
}
