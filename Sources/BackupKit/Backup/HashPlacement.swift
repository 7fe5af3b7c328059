// HashPlacement: which backup thread computes a file's SHA-256.

/// Where file data is hashed during a backup.
enum HashPlacement: Sendable, Equatable {
    /// The formatting thread, unless it falls behind the reading thread, which then hashes what it reads.
    case shared
    /// The reading thread for files smaller than `size` bytes, the formatting thread for the others.
    case readerBelow(UInt64)
    /// Always the reading thread (tests).
    case reader
    /// Always the formatting thread (tests).
    case writer

    /// Where there is time to spare, as measured on a 40k-file tree. For a plain tar the reading and formatting
    /// threads share it by backlog (7% faster than the formatter alone). With compression the output thread
    /// compresses and is the busiest, and the formatter must keep it fed: the reader hashes the small files
    /// and the formatter the few large ones (1 MiB or more), whose long runs of data the compressor's deeper
    /// queue absorbs. For zstd that was 5% faster than the reader hashing everything, which was 4% faster than
    /// sharing (sharing reads a formatter waiting for the compressor as one with too much to do) and 11%
    /// faster than the formatter alone.
    static func `default`(for compression: Compression) -> HashPlacement {
        compression == .none ? .shared : .readerBelow(1 << 20)
    }
}
