// HashPlacement: which backup thread computes a file's SHA-256.

/// Where file data is hashed during a backup.
enum HashPlacement: Sendable {
    /// The formatting thread, unless it falls behind the reading thread, which then hashes what it reads.
    case shared
    /// Always the reading thread (tests).
    case reader
    /// Always the formatting thread (tests).
    case writer
}
