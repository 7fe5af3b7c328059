// StagingPipeline: the staging tree's writes (and their SHA-256) on a second thread, while the first reads and checks.
//
// The reader thread (libarchive, the framing audit, the manifest, every directory, symlink and hard link) and the
// writer thread (pwrite, futimens, close: kernel time; SHA-256 of the data it writes, for a format with a manifest)
// overlap on the machine's two cores.
// Creating a file (openat2 with O_CREAT|O_EXCL: a new inode and dentry) costs about as much kernel time as
// writing its data; which side does it is the run's `FileCreation` (the writer, unless pinned). When the writer is
// behind (every batch in flight), the reader applies the batch it just filled itself instead of waiting, unless
// that batch continues a file the writer holds (`FileCreation.writer` only: pinned, the writer applies every batch).
// Batches carry a copy of the file data (libarchive reuses its buffers), so memory stays at a few small arenas
// whatever the archive.
//
// Hashing where the data is written balances the two threads: a batch the reader applies itself is hashed there.
// Each batch gathers the digests of the files it closes; the writer appends them to the digest log after applying
// the batch, and a batch the reader applied hands its digests on at the head of the next one, so the log keeps the
// archive's order whichever thread applied what (a reader-applied batch finishes before the writer's earlier ones).
// A file still open at the end of a reader-applied batch goes on with its digest so far.
//
// A larger file (`writesWhereRead`), which the reader hashes as it reads it, the reader also creates and writes itself,
// from the bytes it just read, and hands the open file to the writer only to be finished: its data never passes from
// one core to the other through an arena.
import Glibc
import Synchronization
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
    private let creation: FileCreation
    /// The files a batch carries before it is handed over (at most `StagingBatch.maxFiles`): `hashedFilesPerBatch`
    /// when the writer hashes small files (a digest log), `StagingBatch.maxFiles` otherwise.
    let filesPerBatch: Int
    /// A file is open at the end of the batch being filled: its next batch continues it (reader thread only).
    private var fileOpen = false
    /// The batch being filled starts with the rest of a file an earlier batch opened (reader thread only).
    private var continuesFile = false
    /// The file a batch the reader applied left open, handed to the next batch (reader thread only).
    private var readerFile: FileDescriptor?
    /// Batches the reader applied itself because the writer was behind (reader thread only).
    private(set) var batchesAppliedByReader = 0
    /// The file the reader is writing itself (`writesWhereRead`), handed to the writer at its `closeFile`
    /// (reader thread only).
    private var readerWrittenFile: FileDescriptor?
    /// Files the reader created and wrote itself (`writesWhereRead`; reader thread only).
    private(set) var filesWrittenByReader = 0

    /// Where the files' digests go (appended by the writer thread only; complete once `flush` or `finish`
    /// returned); nil when nothing is hashed (a format without a manifest).
    private let digestLog: DigestLog?
    /// The digest of the file the writer is filling (writer thread only; nil when nothing is hashed).
    private let writerHash: StagingHash?
    /// The digest of the file a batch the reader applies is filling (reader thread only).
    private let readerHash: StagingHash?
    /// The writer waited for a CPU over its last interval (`RunQueueDelay`, read every `watchInterval` batches): it
    /// shares a core with a busy process, and the reader, which has one, hashes every file.
    private let writerWaitsForCPU = Atomic<Bool>(false)
    /// 16 batches, as a backup's formatter reads its delay (`BatchConsumer.watchInterval`).
    static let watchInterval = 16

    /// Called on the writer thread before each batch (tests hold the writer there to see the reader apply batches).
    private let writerGate: (@Sendable () -> Void)?

    init(
        creation: FileCreation = .writer, digestLog: DigestLog? = nil, writerGate: (@Sendable () -> Void)? = nil
    ) throws {
        self.creation = creation
        filesPerBatch = digestLog == nil ? StagingBatch.maxFiles : StagingPipeline.hashedFilesPerBatch
        self.digestLog = digestLog
        writerHash = digestLog == nil ? nil : try StagingHash()
        readerHash = digestLog == nil ? nil : try StagingHash()
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

    /// Whether a file of `size` bytes is hashed by the thread that writes it (`addFile`'s `hashed`): a small one, when
    /// there is a digest log. The writer's cost is mostly per file (create, write, times, close), the reader's per
    /// byte: the reader hashes a larger file as it reads it, while a thread writes it, and logs its digest
    /// (`.logDigest`); a file that spans batches would otherwise keep every batch of it on the writer (the file is
    /// open there) while the reader waited.
    /// While the writer waits for a CPU (one core busy: it shares that core), the reader hashes every file (not when
    /// pinned: the writer then hashes every small file, on every run).
    func hashesWhereWritten(size: UInt64) -> Bool {
        digestLog != nil && size < UInt64(StagingPipeline.readerHashedSize)
            && !writerWaitsForCPU.load(ordering: .relaxed)
    }

    /// The size from which the reader hashes a file (`hashesWhereWritten`). On the bench tree (15 alternating rounds
    /// a set) 2, 4 and 8 KiB measured level, 0.92-0.93x the reader hashing every file; 128 KiB 0.95x, 1 KiB 0.96x,
    /// every file where it is written 0.98x.
    static let readerHashedSize = 4096

    /// Whether the reader creates and writes a file of `size` bytes itself, from the bytes it reads and hashes, and
    /// hands the open file to the writer only to be finished (`closeFile`): a file of `readerWrittenSize` or more, when
    /// there is a digest log (the reader hashes such a file as it reads it: `hashesWhereWritten`) and the writer
    /// creates files (not when pinned). Its bytes then never pass to the other core through a batch: copied into an
    /// arena by one core and read by the other's `pwrite`, every line crossed twice, and when the host placed the two
    /// virtual CPUs far apart (no cache in common) that made a restore 12-15% slower (0.70-0.73x `tar -xf` against
    /// 0.63-0.65x), while GNU tar's one thread lost nothing. Written where it was read, a file's bytes are copied once,
    /// from libarchive's buffer, still in the reader's cache after hashing.
    func writesWhereRead(size: UInt64) -> Bool {
        digestLog != nil && creation == .writer && size >= UInt64(StagingPipeline.readerWrittenSize)
    }

    /// The size from which the reader writes a file itself (`writesWhereRead`). Restoring the bench archive on an AMD
    /// EPYC host (2026-12-07, rounds alternating with the build before, the placement probed before each): with the
    /// CPUs far apart 0.93x, 0.91x and 0.93x the time (15, 15 and 12 rounds: 0.704 -> 0.652x `tar -xf`, 0.714 ->
    /// 0.643x, 0.726 -> 0.682x), near 1.005x, 1.013x and 0.998x, CPU time 2-14% less; one core busy 0.98x and 0.94x;
    /// 4 KiB (every file the reader hashes) and 16 KiB alike, 64 KiB far 0.99x. On that tree files of 8 KiB or more
    /// are 2,279 of 40,065 and 66% of the bytes. At least `readerHashedSize`: such a file is never hashed where written.
    static let readerWrittenSize = 8192

    /// Files a batch carries when a digest log is kept. The writer's work is mostly per file (create, write, hash a
    /// small one, times, close), so a batch of 48 small files was the longest stretch the reader could not take part
    /// in: with the writer behind and every batch in flight, the reader waited for a whole such batch before it could
    /// apply one itself, and a large file queued behind four of them waited longer. 16 keeps those stretches short.
    /// Restoring the bench archive on an AMD EPYC host (alternating rounds against 48): 0.91x and 0.90x (21 rounds),
    /// with a busy loop on CPU 1 0.76x (15), a 200,000-file archive 0.84x (7; 24 files 0.89x); 8 to 32 measured
    /// alike on the bench archive. A MobileSync restore (no digests: its writer only creates and writes) measured
    /// 1.09x and 1.14x with 16 (15 and 11 rounds) and keeps 48.
    static let hashedFilesPerBatch = 16

    /// Queues the creation of the regular file `path` in `tree` (on the run's `FileCreation` thread) and then the
    /// writes into it: `addData` and `closeFile` follow. `hashed`: the thread that writes the file hashes it
    /// and logs its digest at `.closeFile` (`hashesWhereWritten`). `writtenHere` (`writesWhereRead`, never with
    /// `hashed`): the reader creates the file now and writes `addData`'s bytes into it itself; `closeFile` queues the
    /// rest for the writer.
    func addFile(
        _ path: MemberPath, permissions: mode_t, hashed: Bool, writtenHere: Bool = false, in tree: StagingTree
    ) throws {
        if writtenHere {
            precondition(!hashed && creation == .writer)
            do {
                readerWrittenFile = try tree.createFile(path, permissions: permissions)
            } catch {
                throw afterQueued(error)
            }
            return
        }
        if current.files >= filesPerBatch || current.room <= path.bytes.count { try submit() }
        let batch = current
        if creation == .reader {
            batch.handed.append(SharedDescriptor(try tree.createFile(path, permissions: permissions)))
            batch.operations.append(.file(handed: batch.handed.count - 1, hashed: hashed))
        } else {
            let parent = try tree.prepareFile(path)
            if batch.parents.last !== parent { batch.parents.append(parent) }
            let span = path.bytes.withUnsafeBytes { batch.append($0, terminated: true) }
            batch.operations.append(
                .create(
                    parent: parent.rawValue, path: span, nameStart: path.name.startIndex, permissions: permissions,
                    hashed: hashed))
            writerCreatesPending = true
        }
        batch.files += 1
        fileOpen = true
    }

    /// Queues the end of the file being created: its length (`truncateTo`, for a sparse tail), owner, mode, `xattrs`
    /// and mtime, then its close; and, when it is hashed where it is written, its digest logged under `logged` (its
    /// member path and size).
    func closeFile(
        truncateTo: UInt64?, owner: StagingOwner?, chmod: mode_t?, xattrs: [(name: String, value: [UInt8])],
        mtime: timespec?, logged: (path: [UInt8], size: UInt64)?
    ) throws {
        if let logged, current.room < logged.path.count { try submit() }
        if readerWrittenFile != nil {
            // The file and its close go in one batch (no batch continues it), which carries at most `filesPerBatch`
            // files, as `addFile` keeps it: the descriptors in flight stay bounded.
            if current.files >= filesPerBatch || current.operations.count + 2 > StagingBatch.maxOperations {
                try submit()
            }
            current.handed.append(SharedDescriptor(readerWrittenFile.take()!))
            current.operations.append(.file(handed: current.handed.count - 1, hashed: false))
            current.files += 1
            filesWrittenByReader += 1
        }
        let batch = current
        var close = StagingOp.Close(truncateTo: truncateTo, owner: owner, chmod: chmod, mtime: mtime)
        if !xattrs.isEmpty {
            batch.xattrs.append(xattrs)
            close.xattrs = batch.xattrs.count - 1
        }
        if let logged {
            close.logged = (logged.path.withUnsafeBytes { batch.append($0) }, logged.size)
        }
        fileOpen = false
        try add(.closeFile(close))
    }

    /// Queues the logging of a digest the reader computed (`StagingOp.logDigest`).
    func logDigest(path: [UInt8], size: UInt64, digest: [UInt8]) throws {
        if current.room < path.count + digest.count { try submit() }
        let batch = current
        let pathSpan = path.withUnsafeBytes { batch.append($0) }
        let digestSpan = digest.withUnsafeBytes { batch.append($0) }
        try add(.logDigest(path: pathSpan, size: size, digest: digestSpan))
    }

    /// Waits until every file queued so far exists (before a hard link names one), when the writer creates any.
    func waitForCreatedFiles() throws {
        guard writerCreatesPending else { return }
        if !current.operations.isEmpty { try submit() }
        guard handOff.waitUntilIdle() else { throw stoppedFailure }
        writerCreatesPending = false
    }

    /// Queues `operation`.
    private func add(_ operation: StagingOp) throws {
        let batch = current
        batch.operations.append(operation)
        if batch.isFull { try submit() }
    }

    /// Queues `count` bytes (at most `StagingBatch.holeUnit`) of a sparse hole in the file being created, to be hashed
    /// as zeros (a file added `hashed`); nothing when nothing is hashed.
    func addHole(_ count: Int) throws {
        guard digestLog != nil, count > 0 else { return }
        precondition(count <= StagingBatch.holeUnit && readerWrittenFile == nil)
        try add(.hole(count: count))
    }

    /// Queues a copy of `bytes`, to be written at `offset` in the file being created, or writes them now, in a file
    /// the reader writes itself (`addFile`'s `writtenHere`).
    func addData(_ bytes: UnsafeRawBufferPointer, offset: UInt64) throws {
        if let fd = readerWrittenFile?.rawValue {
            do {
                try Kernel.writeAll(fd, bytes, at: offset, path: readerWrittenFile?.path ?? "")
            } catch {
                throw afterQueued(error)
            }
            return
        }
        var done = 0
        while done < bytes.count {
            let batch = current
            let count = min(bytes.count - done, batch.room)
            let span = batch.append(UnsafeRawBufferPointer(rebasing: bytes[done..<(done + count)]))
            batch.operations.append(.data(offset: offset + UInt64(done), start: span.start, count: count))
            done += count
            if batch.isFull { try submit() }
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
        try handOver()
    }

    /// Hands the current batch to the writer and takes a spare one, waiting while the writer holds them all.
    private func handOver() throws {
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
            try execute(current, file: &readerFile, hash: readerHash)
        } catch {
            try? readerFile.take()?.close()
            current.reset()
            throw afterQueued(error)
        }
        batchesAppliedByReader += 1
        current.reset(keepingDigests: true)
        if let open = readerFile.take() {
            current.handed.append(SharedDescriptor(open))
            current.resumedHash = try readerHash?.copy()
            current.operations.append(.resume(handed: current.handed.count - 1))
        }
    }

    /// What to throw for a failure on the reader's side of applying (a batch it applies, a file it writes itself): the
    /// writer's failure, if applying the batches queued before fails (it concerns an earlier member), or `error`.
    /// A file the reader was writing is closed.
    private func afterQueued(_ error: any Error) -> any Error {
        try? readerWrittenFile.take()?.close()
        _ = handOff.waitUntilIdle()
        return handOff.failure ?? error
    }

    /// The writer's failure, once the hand-off stopped.
    private var stoppedFailure: any Error {
        handOff.failure ?? SystemError("write", path: "staging", code: ECANCELED)
    }

    /// Hands everything queued to the writer and waits until it has applied it: every digest queued so far is in the
    /// log then. Throws the writer's failure.
    func flush() throws {
        if !current.isEmpty { try handOver() }
        guard handOff.waitUntilIdle() else { throw stoppedFailure }
    }

    /// Writes everything queued, waits for the writer to finish, and throws its failure if it had one.
    func finish() throws {
        if !current.isEmpty { handOff.submit(current) }
        handOff.close()
        worker.take()?.join()
        if let failure = handOff.failure { throw failure }
    }

    /// Stops the writer after a failure on the reader side (queued writes are dropped) and waits for it.
    /// Returns the writer's own failure, which concerns an earlier member and so is the one to report.
    func stop() -> (any Error)? {
        current.reset()
        try? readerWrittenFile.take()?.close()
        try? readerFile.take()?.close()
        handOff.cancel()
        worker.take()?.join()
        return handOff.failure
    }

    // MARK: - Writer thread

    private func run() {
        var delay = creation == .writer && digestLog != nil ? RunQueueDelay() : nil
        var applied = 0
        // The file the writer is filling: a local, not a property, so that no field of this object the reader reads
        // for every file shares a cache line with one the writer changes for every file.
        var file: FileDescriptor?
        while let batch = handOff.next() {
            writerGate?()
            do {
                try execute(batch, file: &file, hash: writerHash)
                if let digestLog, batch.digests.count > 0 { try digestLog.append(batch.digests) }
            } catch {
                handOff.fail(error)
                batch.reset()
            }
            // The reader empties the batch when it takes it again (`submit`): what it allocated for the batch's
            // operations is freed on its own thread, not here (a free from another thread's arena took its lock).
            handOff.recycle(batch)
            applied &+= 1
            if applied % StagingPipeline.watchInterval == 0, let contended = delay?.contended() {
                writerWaitsForCPU.store(contended, ordering: .relaxed)
            }
        }
        try? file.take()?.close()
    }

    /// Applies `batch`'s operations in order, gathering the digests of the files it closes into the batch; `file` is
    /// the applying thread's open file and `hash` its digest (nil when nothing is hashed), carried across batches.
    private func execute(_ batch: StagingBatch, file: inout FileDescriptor?, hash: StagingHash?) throws {
        let arena = UnsafeRawPointer(batch.arena.baseAddress!)
        try batch.operations.withUnsafeBufferPointer { operations in
            for operation in operations {
                switch operation {
                case .create(let parent, let path, let nameStart, let permissions, let hashed):
                    let name = (arena + path.start + nameStart).assumingMemoryBound(to: CChar.self)
                    file = try StagingTree.openNewFile(
                        name, in: parent, permissions: permissions,
                        display: String(decoding: batch.bytes(path), as: UTF8.self))
                    try hash?.start(active: hashed)
                case .file(let index, let hashed):
                    file = batch.handed[index].take()
                    try hash?.start(active: hashed)
                case .resume(let index):
                    file = batch.handed[index].take()
                    if let state = batch.resumedHash { hash?.take(state) }
                case .data(let offset, let start, let count):
                    guard let fd = file?.rawValue else { continue }
                    let bytes = UnsafeRawBufferPointer(start: arena + start, count: count)
                    try Kernel.writeAll(fd, bytes, at: offset, path: file?.path ?? "")
                    hash?.update(bytes)
                case .hole(let count):
                    hash?.updateZeros(count)
                case .logDigest(let path, let size, let digest):
                    batch.digests.append(path: batch.bytes(path), size: size, digest: batch.bytes(digest))
                case .closeFile(let close):
                    if let logged = close.logged {
                        hash?.withFinalDigest {
                            batch.digests.append(path: batch.bytes(logged.path), size: logged.size, digest: $0)
                        }
                    }
                    guard let file = file.take() else { continue }
                    try finish(file, close, xattrs: close.xattrs.map { batch.xattrs[$0] } ?? [])
                }
            }
        }
    }

    /// Sets what `close` says on `file` and closes it.
    private func finish(
        _ file: consuming FileDescriptor, _ close: StagingOp.Close, xattrs: [(name: String, value: [UInt8])]
    ) throws {
        let fd = file.rawValue
        if let size = close.truncateTo {
            try SystemError.check("ftruncate", path: file.path) { ftruncate(fd, off_t(size)) }
        }
        if let owner = close.owner {
            try SystemError.check("fchown", path: file.path) { fchown(fd, owner.uid, owner.gid) }
        }
        if let chmod = close.chmod { try SystemError.check("fchmod", path: file.path) { fchmod(fd, chmod) } }
        if !xattrs.isEmpty { try StagingTree.setXattrs(xattrs, on: fd, path: file.path) }
        if let mtime = close.mtime { try ModificationTime.set(mtime, descriptor: fd, path: file.path) }
        try file.close()
    }
}
