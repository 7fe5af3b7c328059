// HashPlacement: which backup thread computes the files' SHA-256, chosen once for a run.
import TarKit

/// Where file data is hashed during a backup: one thread for every file of a run, chosen before the walk starts
/// (`default(for:compression:)`, or pinned by a test) and never re-decided while the run goes on.
enum HashPlacement: Sendable, Equatable {
    /// The reading thread, as it reads each file (a digest record follows the file's data in the batch).
    case reader
    /// The formatting thread (`BatchConsumer`), as it drains each batch.
    case formatter
    /// Either, file by file: the reading thread hashes a share of the files (`HashShare`: kept where both threads
    /// sleep on each other alike, from none at the start), and every file that starts in a batch it took while every
    /// batch was full and waiting; the formatting thread the rest (a digest record follows a file the reader hashed).
    /// Which thread is the slower differs by machine and tree: on an Intel Xeon the formatter was, for the bench tree
    /// (the share settled near 0.6, 8-12% faster than the backlog rule alone); on an AMD EPYC both were about equally
    /// busy; with a million small files writing the archive makes the formatter the slower one (see `forTar`). The
    /// formatting thread also keeps off the reading thread's CPU and, while it waits for a CPU (`RunQueueDelay`: it
    /// shares a core with another process), the reading thread hashes whenever a batch waits beside the one drained.
    case byBacklog
    /// Nowhere: the format keeps no per-file digests (MobileSync: its readers, devicectl's included, check content
    /// files against Manifest.db's sizes; an encrypted one keeps no devicectl manifest at all: nothing in the clear
    /// beside its encrypted files). The manifest is its header alone: `FileHasher` appends no line and
    /// `ManifestWriter.finish` gets no members digest. Hashing every byte for lines no reader checked was 15% of a
    /// plain MobileSync backup's time (the bench tree, 11 alternating rounds: 0.404 against 0.476 s).
    case nowhere

    /// The placement of every run that hashes. A plain tar's formatter has a thread of its own beside the reader:
    /// alternating runs on the bench tree measured hashing there level with sharing the work by backlog, as an
    /// earlier version did (0.345 against 0.347 s; 0.608 against 0.617 s with one core busy). Compressed, the
    /// reading thread formats (`BackupEngine.formatsInline`) while the compressor has the second core. A MobileSync
    /// backup's formatter hands content files and rows to threads of their own.
    static let `default` = HashPlacement.formatter

    /// A tar backup's placement: by backlog for a plain tar, whose formatting thread falls behind when the archive's
    /// writes get slow (a million files of 1 kB: 3 alternating pairs, 12.5, 19.6 and 15.7 s against 18.6, 21.4 and
    /// 13.3 s with the formatter hashing every file; the 40,000-file bench tree level, 0.986x over 15 pairs); the
    /// formatting thread when the run pins its threads, or when it is the reading thread itself (compressed).
    static func forTar(compression: Compression, pinned: Bool) -> HashPlacement {
        compression == .none && !pinned ? .byBacklog : .formatter
    }
}
