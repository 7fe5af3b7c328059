// StagingOp: one write the staging pipeline's writer thread performs, in archive order.
import Glibc

/// A numeric owner to apply (only when running as root).
struct StagingOwner {
    let uid: uid_t
    let gid: gid_t
}

/// One operation on the staging tree. Everything about the member was decided and checked by the reader;
/// the writer only performs it (and the kernel still refuses anything that would leave the staging directory).
enum StagingOp {
    case directory(
        MemberPath, permissions: mode_t, mtime: timespec?, owner: StagingOwner?,
        xattrs: [(name: String, value: [UInt8])])
    case symlink(MemberPath, target: [UInt8], owner: StagingOwner?, mtime: timespec?)
    case hardLink(MemberPath, target: MemberPath)
    /// Creates the file; the following `.data` operations write into it until `.closeFile`.
    case createFile(MemberPath, permissions: mode_t)
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

    var operations: [StagingOp] = []
    let arena = UnsafeMutableRawBufferPointer.allocate(byteCount: StagingBatch.arenaSize, alignment: 64)
    var used = 0

    init() {
        operations.reserveCapacity(StagingBatch.maxOperations)
    }

    deinit {
        arena.deallocate()
    }

    func reset() {
        operations.removeAll(keepingCapacity: true)
        used = 0
    }

    var isFull: Bool { operations.count >= StagingBatch.maxOperations || used == StagingBatch.arenaSize }
}
