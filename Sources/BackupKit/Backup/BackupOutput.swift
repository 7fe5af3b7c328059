// BackupOutput: where the archive goes.

/// Where the archive goes.
public enum BackupOutput: Sendable, Equatable {
    /// A file, written atomically (temporary file, fsync, rename).
    case file(String)
    /// Standard output (`-o -`), streamed.
    case standardOutput
}
