// StagingOp: one write the staging pipeline's writer thread performs, in archive order.
import Glibc

/// One operation on a regular file. Every directory, symlink and hard link, and every parent directory, is
/// made by the reader thread through `StagingTree` (the tree has one user); a file is created either there
/// (`.file`) or, when the writer has time to spare, by the writer in the parent the reader resolved (`.create`).
/// For a format with a manifest, the thread that applies a small file's operations (`hashed`) also hashes its data
/// (holes as zeros) and logs the digest at `.closeFile` (`StagingPipeline`).
///
/// An operation holds no reference: names, paths and digests are bytes in its batch's arena (`StagingBatch.Span`),
/// and what must stay alive or be handed over (a parent directory, an open file, extended attributes) is held by the
/// batch and named by descriptor or index. So queuing and applying one copies plain bytes and touches no reference
/// count: a count that both threads change moves its cache line from one core to the other, and a restore did so
/// several times a file (the parent directory, the name, the path shown in messages, the logged path).
enum StagingOp {
    /// Creates the last component of `path` (from `nameStart`; NUL-terminated in the arena) in the directory
    /// `parent`, exclusively, beneath it; the following `.data` operations write into it. `parent` is a raw
    /// descriptor whose `SharedDescriptor` the batch holds in `parents` until the batch is emptied.
    case create(parent: Int32, path: StagingBatch.Span, nameStart: Int, permissions: mode_t, hashed: Bool)
    /// The file the reader created (the batch's `handed[index]`), which the following `.data` operations write into
    /// until `.closeFile` (the applying thread takes it out); or one the reader created and wrote itself
    /// (`StagingPipeline.writesWhereRead`), which `.closeFile` follows at once.
    case file(handed: Int, hashed: Bool)
    /// The file a batch the reader applied left open (`handed[index]`), with its digest so far in the batch's
    /// `resumedHash` (nil when nothing is hashed).
    case resume(handed: Int)
    /// `count` bytes at `start` in the batch's arena, written at `offset` in the open file.
    case data(offset: UInt64, start: Int, count: Int)
    /// `count` bytes of a sparse hole in the open file, hashed as zeros (nothing written; at most
    /// `StagingBatch.holeUnit`, so that no one operation holds the applying thread for long).
    case hole(count: Int)
    /// Logs a digest (32 bytes in the arena) the reader computed, in its place among the files: of a file it hashed
    /// as it read it (a larger file, after its `.closeFile`), or of one read but not written (a DeviceLocal member,
    /// or one the target flags).
    case logDigest(path: StagingBatch.Span, size: UInt64, digest: StagingBatch.Span)
    /// Finishes the open file.
    case closeFile(Close)

    /// What finishing a file sets: length (sparse tail), owner, mode, user xattrs, mtime, then close; and the digest
    /// to log under `logged` (its member path and size) when the applying thread hashes it.
    struct Close {
        var truncateTo: UInt64?
        var owner: StagingOwner?
        var chmod: mode_t?
        /// The batch's `xattrs[index]`, when the file has any.
        var xattrs: Int?
        var mtime: timespec?
        var logged: (path: StagingBatch.Span, size: UInt64)?
    }
}
