// HashPlacement: which backup thread computes the files' SHA-256, chosen once for a run.
import TarKit

/// Where file data is hashed during a backup: one thread for every file of a run, chosen before the walk starts
/// (`default(for:compression:)`, or pinned by a test) and never re-decided while the run goes on.
enum HashPlacement: Sendable, Equatable {
    /// The reading thread, as it reads each file (a digest record follows the file's data in the batch).
    case reader
    /// The formatting thread (`BatchConsumer`), as it drains each batch.
    case formatter
    /// Nowhere: the format keeps no devicectl manifest, so no file digest is used (an encrypted MobileSync backup,
    /// whose manifest would list every path in the clear). The manifest's lines still count the files; their digests
    /// are zeros, never written anywhere.
    case nowhere

    /// The placement of every run that hashes. A plain tar's formatter has a thread of its own beside the reader:
    /// alternating runs on the bench tree measured hashing there level with sharing the work by backlog, as an
    /// earlier version did (0.345 against 0.347 s; 0.608 against 0.617 s with one core busy). Compressed, the
    /// reading thread formats (`BackupEngine.formatsInline`) while the compressor has the second core. A MobileSync
    /// backup's formatter hands content files and rows to threads of their own.
    static let `default` = HashPlacement.formatter
}
