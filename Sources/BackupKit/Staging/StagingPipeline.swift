// StagingPipeline: the staging tree's writes on a second thread, while the first reads, checks and hashes.
//
// The reader thread (libarchive, the framing audit, SHA-256, the manifest, every directory, symlink and hard
// link) and the writer thread (pwrite, futimens, close: kernel time) overlap on the machine's two cores.
// Creating a file (openat2 with O_CREAT|O_EXCL: a new inode and dentry) costs about as much kernel time as
// writing its data; which side does it is the run's `FileCreation` (the writer, unless pinned). When the writer is
// behind (every batch in flight), the reader applies the batch it just filled itself instead of waiting, unless
// that batch continues a file the writer holds (`FileCreation.writer` only: pinned, the writer applies every batch).
// Batches carry a copy of the file data (libarchive reuses its buffers), so memory stays at a few small arenas
// whatever the archive.
import Glibc
import SystemKit
import TarKit

/// Hands batches of `StagingOp` to a writer thread that applies them, in order.
final class StagingPipeline: @unchecked Sendable {
    /// Batches in flight besides the one being filled: enough for the reader to run ahead through a burst of
    /// small files (or the writer through a large one) without waiting.
    static let depth = 5
    /// The batches between the reader and the writer thread (a wake per batch: each is large).
    private let handOff = HandOff<StagingBatch, any Error>(
        items: (0..<StagingPipeline.depth).map { _ in StagingBatch() })
    /// The writer thread, joined by `finish` or `stop`.
    private var worker: WorkerThread?
    /// The batch the reader is filling (reader thread only).
    private var current = StagingBatch()
    /// A file of the queued batches is still to be created by the writer (reader thread only).
    private var writerCreatesPending = false
    /// The file the writer is filling (writer thread only).
    private var file: FileDescriptor?
    private let creation: FileCreation
    /// A file is open at the end of the batch being filled: its next batch continues it (reader thread only).
    private var fileOpen = false
    /// The batch being filled starts with the rest of a file an earlier batch opened (reader thread only).
    private var continuesFile = false
    /// The file a batch the reader applied left open, handed to the next batch (reader thread only).
    private var readerFile: FileDescriptor?
    /// Batches the reader applied itself because the writer was behind (reader thread only).
    private(set) var batchesAppliedByReader = 0

    /// Called on the writer thread before each batch (tests hold the writer there to see the reader apply batches).
    private let writerGate: (@Sendable () -> Void)?

    init(creation: FileCreation = .writer, writerGate: (@Sendable () -> Void)? = nil) {
        self.creation = creation
        self.writerGate = writerGate
        do {
            // Off the reader's CPU (unless pinned): both threads on one core ran a restore at its CPU time.
            worker = try WorkerThread(offCallersCPU: creation == .writer) { [self] in run() }
        } catch {
            // No second thread: fail the first submission instead of hanging.
            handOff.fail(error)
        }
    }

    // MARK: - Reader side

    /// Queues the creation of the regular file `path` in `tree` (on the run's `FileCreation` thread) and then the
    /// writes into it: `addData` and `add(.closeFile)` follow.
    func addFile(_ path: MemberPath, permissions: mode_t, in tree: StagingTree) throws {
        if current.files >= StagingBatch.maxFiles { try submit() }
        if creation == .reader {
            current.operations.append(.file(SharedDescriptor(try tree.createFile(path, permissions: permissions))))
        } else {
            let (parent, name) = try tree.prepareFile(path)
            current.operations.append(.create(parent: parent, name: name, display: path.text, permissions: permissions))
            writerCreatesPending = true
        }
        current.files += 1
        fileOpen = true
    }

    /// Waits until every file queued so far exists (before a hard link names one), when the writer creates any.
    func waitForCreatedFiles() throws {
        guard writerCreatesPending else { return }
        if !current.operations.isEmpty { try submit() }
        guard handOff.waitUntilIdle() else { throw stoppedFailure }
        writerCreatesPending = false
    }

    /// Queues `operation`.
    func add(_ operation: StagingOp) throws {
        current.operations.append(operation)
        if case .closeFile = operation { fileOpen = false }
        if current.isFull { try submit() }
    }

    /// Queues a copy of `bytes`, to be written at `offset` in the file being created.
    func addData(_ bytes: UnsafeRawBufferPointer, offset: UInt64) throws {
        var done = 0
        while done < bytes.count {
            let count = min(bytes.count - done, StagingBatch.arenaSize - current.used)
            (current.arena.baseAddress! + current.used).copyMemory(from: bytes.baseAddress! + done, byteCount: count)
            current.operations.append(.data(offset: offset + UInt64(done), start: current.used, count: count))
            current.used += count
            done += count
            if current.isFull { try submit() }
        }
    }

    /// Hands the current batch to the writer and takes a spare one (waiting while the writer is behind), or, when
    /// the writer is behind and the batch does not continue a file the writer holds, applies it here.
    /// Throws the writer's failure as soon as there is one.
    private func submit() throws {
        if creation == .writer, !continuesFile, !handOff.hasSpare {
            try applyHere()
            return
        }
        continuesFile = fileOpen
        guard handOff.submit(current) else { throw stoppedFailure }
        guard let spare = handOff.takeSpare() else {
            // The submitted batch is the writer's now (it may be resetting it after its failure this moment):
            // the reader must not touch it again, so `stop` resets an empty batch of its own instead.
            current = StagingBatch()
            throw stoppedFailure
        }
        current = spare
        current.reset()
    }

    /// Applies the current batch on the reader's thread and empties it; a file it leaves open goes on at the head of
    /// the next batch. A failure here is reported after the writer applied the batches queued before (theirs, if
    /// one fails, concerns an earlier member).
    private func applyHere() throws {
        do {
            try execute(current, file: &readerFile)
        } catch {
            try? readerFile.take()?.close()
            current.reset()
            _ = handOff.waitUntilIdle()
            throw handOff.failure ?? error
        }
        batchesAppliedByReader += 1
        current.reset()
        if let open = readerFile.take() { current.operations.append(.file(SharedDescriptor(open))) }
    }

    /// The writer's failure, once the hand-off stopped.
    private var stoppedFailure: any Error {
        handOff.failure ?? SystemError("write", path: "staging", code: ECANCELED)
    }

    /// Writes everything queued, waits for the writer to finish, and throws its failure if it had one.
    func finish() throws {
        if !current.operations.isEmpty { handOff.submit(current) }
        handOff.close()
        worker.take()?.join()
        if let failure = handOff.failure { throw failure }
    }

    /// Stops the writer after a failure on the reader side (queued writes are dropped) and waits for it.
    /// Returns the writer's own failure, which concerns an earlier member and so is the one to report.
    func stop() -> (any Error)? {
        current.reset()
        try? readerFile.take()?.close()
        handOff.cancel()
        worker.take()?.join()
        return handOff.failure
    }

    // MARK: - Writer thread

    private func run() {
        while let batch = handOff.next() {
            writerGate?()
            do {
                try execute(batch, file: &file)
            } catch {
                handOff.fail(error)
                batch.reset()
            }
            // The reader empties the batch when it takes it again (`submit`): what it allocated for the batch's
            // operations is freed on its own thread, not here (a free from another thread's arena took its lock).
            handOff.recycle(batch)
        }
        try? file.take()?.close()
    }

    /// Applies `batch`'s operations in order; `file` is the applying thread's open file, carried across batches.
    private func execute(_ batch: StagingBatch, file: inout FileDescriptor?) throws {
        for operation in batch.operations {
            switch operation {
            case .create(let parent, let name, let display, let permissions):
                file = try StagingTree.openNewFile(name, in: parent, permissions: permissions, display: display)
            case .file(let opened):
                file = opened.take()
            case .data(let offset, let start, let count):
                guard file != nil else { continue }
                let fd = file?.rawValue ?? -1
                let path = file?.path ?? ""
                var done = 0
                while done < count {
                    let n = try SystemError.check("write", path: path) {
                        pwrite(fd, batch.arena.baseAddress! + start + done, count - done, off_t(offset) + off_t(done))
                    }
                    done += n
                }
            case .closeFile(let truncateTo, let owner, let chmod, let xattrs, let mtime):
                guard let file = file.take() else { continue }
                let fd = file.rawValue
                if let size = truncateTo {
                    try SystemError.check("ftruncate", path: file.path) { ftruncate(fd, off_t(size)) }
                }
                if let owner { try SystemError.check("fchown", path: file.path) { fchown(fd, owner.uid, owner.gid) } }
                if let chmod { try SystemError.check("fchmod", path: file.path) { fchmod(fd, chmod) } }
                if !xattrs.isEmpty { try StagingTree.setXattrs(xattrs, on: fd, path: file.path) }
                if let mtime {
                    try ModificationTime.set(mtime, descriptor: fd, path: file.path)
                }
                try file.close()
            }
        }
    }
}
