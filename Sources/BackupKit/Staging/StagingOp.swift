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
enum StagingOp {
    /// Creates `name` in `parent` (exclusively, beneath it); the following `.data` operations write into it.
    case create(parent: SharedDescriptor, name: CName, display: String, permissions: mode_t)
    /// The file the reader created, which the following `.data` operations write into until `.closeFile` (the
    /// writer takes it out).
    case file(SharedDescriptor)
    /// `count` bytes at `start` in the batch's arena, written at `offset` in the open file.
    case data(offset: UInt64, start: Int, count: Int)
    /// Finishes the open file: length (sparse tail), owner, mode, user xattrs, mtime, close.
    case closeFile(
        truncateTo: UInt64?, owner: StagingOwner?, chmod: mode_t?, xattrs: [(name: String, value: [UInt8])],
        mtime: timespec?)
}

/// A batch of operations and the file data they refer to, handed from the reader to the writer at once.
final class StagingBatch {
    static let arenaSize = 128 << 10
    static let maxOperations = 256
    /// Open files a batch may carry: the descriptors in flight stay far below RLIMIT_NOFILE's usual 1024.
    static let maxFiles = 48

    var operations: [StagingOp] = []
    let arena = UnsafeMutableRawBufferPointer.allocate(byteCount: StagingBatch.arenaSize, alignment: 64)
    var used = 0
    var files = 0

    init() {
        operations.reserveCapacity(StagingBatch.maxOperations)
    }

    deinit {
        arena.deallocate()
    }

    /// Empties the batch (a descriptor still in it, from a batch dropped after a failure, is closed).
    func reset() {
        operations.removeAll(keepingCapacity: true)
        used = 0
        files = 0
    }

    /// No room for another operation or byte of data. (`maxFiles` is kept by `StagingPipeline.addFile`, which hands
    /// a batch over before the file that would pass it: a boundary between files, which the reader can apply itself.)
    var isFull: Bool {
        operations.count >= StagingBatch.maxOperations || used == StagingBatch.arenaSize
    }
}
