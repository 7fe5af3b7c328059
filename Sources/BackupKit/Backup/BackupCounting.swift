// BackupCounting: whether a backup counts its tree for a total, and on which thread (a policy tests can pin).

/// How a backup learns its total for a percentage (`BackupScanner`).
public enum BackupCounting: Sendable {
    /// No count: progress shows counts and a rate only.
    case off
    /// A second walk on an idle-only thread while the backup runs (the default when progress is shown): it costs
    /// the backup next to nothing, and the total comes when that walk ends.
    case alongside
    /// The whole count first, on the backup's thread, then the backup: every report has the total, at the cost of
    /// a walk (`DEVICECTL_THREADS=pinned`, so tests see the same reports on every run).
    case first
}
