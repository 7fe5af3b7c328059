// StagingOp: one write the staging pipeline's writer thread performs, in archive order.
import Glibc
import SystemKit

/// A numeric owner to apply (only when running as root).
struct StagingOwner {
    let uid: uid_t
    let gid: gid_t
}

/// One operation on a regular file. Every directory, symlink and hard link, and every parent directory, is
/// made by the reader thread through `StagingTree` (the tree has one user); a file is created either there
/// (`.file`) or, when the writer has time to spare, by the writer in the parent the reader resolved (`.create`).
/// For a format with a manifest, the thread that applies a small file's operations (`hashed`) also hashes its data
/// (holes as zeros) and logs the digest at `.closeFile` (`StagingPipeline`).
enum StagingOp {
    /// Creates `name` in `parent` (exclusively, beneath it); the following `.data` operations write into it.
    case create(parent: SharedDescriptor, name: CName, display: String, permissions: mode_t, hashed: Bool)
    /// The file the reader created, which the following `.data` operations write into until `.closeFile` (the
    /// applying thread takes it out).
    case file(SharedDescriptor, hashed: Bool)
    /// The file a batch the reader applied left open, with its digest so far (nil when nothing is hashed).
    case resume(SharedDescriptor, hash: StagingHash?)
    /// `count` bytes at `start` in the batch's arena, written at `offset` in the open file.
    case data(offset: UInt64, start: Int, count: Int)
    /// `count` bytes of a sparse hole in the open file, hashed as zeros (nothing written; at most
    /// `StagingBatch.holeUnit`, so that no one operation holds the applying thread for long).
    case hole(count: Int)
    /// Logs a digest the reader computed, in its place among the files: of a file it hashed as it read it (a larger
    /// file, after its `.closeFile`), or of one read but not written (a DeviceLocal member, or one the target flags).
    case logDigest(path: [UInt8], size: UInt64, digest: [UInt8])
    /// Finishes the open file: length (sparse tail), owner, mode, user xattrs, mtime, close; logs its digest under
    /// `logged` (its member path and size) when hashing.
    case closeFile(
        truncateTo: UInt64?, owner: StagingOwner?, chmod: mode_t?, xattrs: [(name: String, value: [UInt8])],
        mtime: timespec?, logged: (path: [UInt8], size: UInt64)?)
}

/// A batch of operations and the file data they refer to, handed from the reader to the writer at once.
final class StagingBatch {
    static let arenaSize = 128 << 10
    static let maxOperations = 256
    /// Open files a batch may carry: the descriptors in flight stay far below RLIMIT_NOFILE's usual 1024.
    static let maxFiles = 48
    /// The most hole bytes one `.hole` operation hashes (a batch of them: 64 MiB, some 40 ms of SHA-256).
    static let holeUnit = 256 << 10

    var operations: [StagingOp] = []
    let arena = UnsafeMutableRawBufferPointer.allocate(byteCount: StagingBatch.arenaSize, alignment: 64)
    var used = 0
    var files = 0
    /// The digests its files logged as it was applied (`DigestLog`'s encoding), in order; a batch the reader applied
    /// hands them on at the head of the next batch's.
    var digests = DigestLog.Records()

    init() {
        operations.reserveCapacity(StagingBatch.maxOperations)
    }

    deinit {
        arena.deallocate()
    }

    /// Empties the batch (a descriptor still in it, from a batch dropped after a failure, is closed); its logged
    /// digests too, unless they are to be handed on.
    func reset(keepingDigests: Bool = false) {
        operations.removeAll(keepingCapacity: true)
        used = 0
        files = 0
        if !keepingDigests { digests.removeAll() }
    }

    /// Nothing to apply and no digests to hand on.
    var isEmpty: Bool { operations.isEmpty && digests.count == 0 }

    /// No room for another operation or byte of data. (`maxFiles` is kept by `StagingPipeline.addFile`, which hands
    /// a batch over before the file that would pass it: a boundary between files, which the reader can apply itself.)
    var isFull: Bool {
        operations.count >= StagingBatch.maxOperations || used == StagingBatch.arenaSize
    }
}
