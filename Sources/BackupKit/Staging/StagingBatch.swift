// StagingBatch: staging operations and the bytes they refer to, handed from the reader to the writer at once.
import Glibc

/// A batch of operations and the file data, names and digests they refer to, handed from the reader to the writer at
/// once. The reader fills it and empties it again (`reset`) when it takes it back, so what it holds is allocated and
/// freed on the reader's thread.
final class StagingBatch {
    static let arenaSize = 128 << 10
    static let maxOperations = 256
    /// Open files a batch may carry: the descriptors in flight stay far below RLIMIT_NOFILE's usual 1024
    /// (a pipeline may hand batches over sooner: `StagingPipeline.filesPerBatch`).
    static let maxFiles = 48
    /// The most hole bytes one `.hole` operation hashes (a batch of them: 64 MiB, some 40 ms of SHA-256).
    static let holeUnit = 256 << 10

    /// Bytes in the arena: where they start and how many.
    struct Span {
        let start: Int
        let count: Int
    }

    var operations: [StagingOp] = []
    let arena = UnsafeMutableRawBufferPointer.allocate(byteCount: StagingBatch.arenaSize, alignment: 64)
    var used = 0
    var files = 0
    /// The digests its files logged as it was applied (`DigestLog`'s encoding), in order; a batch the reader applied
    /// hands them on at the head of the next batch's.
    var digests = DigestLog.Records()
    /// The directories `.create` operations name by descriptor, kept open until the batch is emptied (each once
    /// in a row: files come directory by directory).
    var parents: [SharedDescriptor] = []
    /// Open files handed to the applying thread (`.file`, `.resume`); a descriptor left here (a batch dropped after
    /// a failure) is closed when the batch is emptied.
    var handed: [SharedDescriptor] = []
    /// The digest so far of the file `.resume` goes on with.
    var resumedHash: StagingHash?
    /// The user xattrs of the files closed (`StagingOp.Close.xattrs`).
    var xattrs: [[(name: String, value: [UInt8])]] = []

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
        parents.removeAll(keepingCapacity: true)
        if !handed.isEmpty { handed.removeAll(keepingCapacity: true) }
        resumedHash = nil
        if !xattrs.isEmpty { xattrs.removeAll(keepingCapacity: true) }
        used = 0
        files = 0
        if !keepingDigests { digests.removeAll() }
    }

    /// Nothing to apply and no digests to hand on.
    var isEmpty: Bool { operations.isEmpty && digests.count == 0 }

    /// No room for another operation or byte of data. (`StagingPipeline.filesPerBatch` is kept by its `addFile`, which
    /// hands a batch over before the file that would pass it: a boundary between files, which the reader can apply
    /// itself.)
    var isFull: Bool {
        operations.count >= StagingBatch.maxOperations || used == StagingBatch.arenaSize
    }

    /// Bytes the arena still has room for.
    var room: Int { StagingBatch.arenaSize - used }

    /// Copies `bytes` (and a NUL after them, when `terminated`) into the arena; the caller made room.
    func append(_ bytes: UnsafeRawBufferPointer, terminated: Bool = false) -> Span {
        let start = used
        precondition(bytes.count + (terminated ? 1 : 0) <= room)
        if bytes.count > 0 { (arena.baseAddress! + start).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
        used += bytes.count
        if terminated {
            arena[used] = 0
            used += 1
        }
        return Span(start: start, count: bytes.count)
    }

    /// The bytes `span` names (without a NUL after them).
    func bytes(_ span: Span) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: arena.baseAddress! + span.start, count: span.count)
    }
}
