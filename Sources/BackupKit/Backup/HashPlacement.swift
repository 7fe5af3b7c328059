// HashPlacement: which backup thread computes a file's SHA-256.
import TarKit

/// Where file data is hashed during a backup.
enum HashPlacement: Sendable, Equatable {
    /// The formatting thread, unless it falls behind the reading thread, which then hashes what it reads.
    case shared
    /// Always the reading thread (tests).
    case reader
    /// Always the formatting thread (tests).
    case writer
    /// Nowhere: the format keeps no devicectl manifest, so no file digest is used (an encrypted MobileSync backup,
    /// whose manifest would list every path in the clear). The manifest's lines still count the files; their digests
    /// are zeros, never written anywhere.
    case nowhere

    /// Where there is time to spare, as measured on a 40k-file tree. For a plain tar the reading and formatting
    /// threads share it by backlog (7% faster than the formatter alone). A compressed backup formats on the
    /// reading thread (`BackupEngine.formatsInline`), so the formatter hashes as it drains each batch, which
    /// needs no digest records: as fast as the reader hashing, or 1% faster.
    static func `default`(for compression: Compression) -> HashPlacement {
        compression == .none ? .shared : .writer
    }
}
