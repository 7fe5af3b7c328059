// HashPlacement: which backup thread computes a file's SHA-256.

/// Where file data is hashed during a backup.
enum HashPlacement: Sendable {
    /// The formatting thread, unless it falls behind the reading thread, which then hashes what it reads.
    case shared
    /// Always the reading thread.
    case reader
    /// Always the formatting thread (tests).
    case writer

    /// Where there is time to spare. For a plain tar, the reading and formatting threads share it (7% faster
    /// than the formatter alone). With compression the output thread compresses and is the busiest; the
    /// formatter must keep it fed, so the reader hashes everything (4% faster than sharing, 11% faster than
    /// the formatter alone, for zstd on a 40k-file tree; sharing reads a formatter waiting for the compressor
    /// as one with too much to do).
    static func `default`(for compression: Compression) -> HashPlacement {
        compression == .none ? .shared : .reader
    }
}
