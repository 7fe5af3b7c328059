// BackupOutput: where the archive goes.

/// Where the archive goes.
public enum BackupOutput: Sendable, Equatable {
    /// A path (see `ArchiveTarget`): a regular file or a new name is written atomically (temporary file, fsync,
    /// rename); a character device or FIFO is written in place; symlinks are followed; a directory, a block
    /// device, a socket or a name in a missing directory is refused.
    case file(String)
    /// Standard output (`-o -`), streamed.
    case standardOutput
}
