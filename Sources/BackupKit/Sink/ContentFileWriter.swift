// ContentFileWriter: a MobileSync backup's content files created, encrypted and written on a worker thread.
import Glibc
import MobileSyncKit
import SystemKit

/// Creates each content file (`xx/<fileID>`, `O_CREAT | O_EXCL | O_NOFOLLOW` in its `xx` directory), encrypts its
/// data when the backup is encrypted (a file whole in one batch padded there and encrypted with the batch's others,
/// `FileBatchCipher`; a larger one by a `FileCipher`, restarted a file) and writes and closes it, on a thread of
/// its own: creating, writing and closing tens of thousands of small files, and AES over every stored byte, were
/// the formatting thread's time, the slowest of a MobileSync backup's threads. The formatter hands over what to do
/// in order, with the data copied into batches of 256 KiB (sixteen, through the one bounded hand-off, `HandOff`); a
/// failure (a full disk) stops the worker and is thrown by the formatter's next call. The worker owns every
/// descriptor it opens and closes it, also when stopped. `drain()` waits until every queued file is complete
/// (before one is read back: a hard link's copy). Key bytes in a batch are zeroed once used.
final class ContentFileWriter {
    /// One step, in order.
    private enum Step {
        /// Create the content file `name` (a fileID) in `directory` (borrowed: the formatter keeps it open until the
        /// worker has stopped); with a key at `keyOffset` in the batch's keys, encrypted.
        case create(directory: Int32, name: String, keyOffset: Int?)
        /// `count` bytes of the current file at `offset` in the batch's data.
        case data(offset: Int, count: Int)
        /// The current file is complete: write the last block (encrypted) and close it.
        case close
        /// A whole file in this batch: create `name` in `directory`, write `count` bytes at `offset` in the batch's
        /// data and close it. With a key (at `keyOffset`), the bytes are the file padded (PKCS#7), encrypted in
        /// place with the batch's other whole files before any step runs (`FileBatchCipher`).
        case whole(directory: Int32, name: String, keyOffset: Int?, offset: Int, count: Int)
    }

    /// A reusable batch of steps, its data and its keys.
    private final class Batch {
        var steps: [Step] = []
        let data = UnsafeMutableRawBufferPointer.allocate(byteCount: ContentFileWriter.batchBytes, alignment: 16)
        var used = 0
        var keys: [UInt8] = []

        deinit {
            clearKeys()
            data.deallocate()
        }

        func clearKeys() {
            keys.withUnsafeMutableBytes { buffer in
                for index in buffer.indices { buffer[index] = 0 }
            }
            keys.removeAll(keepingCapacity: true)
        }
    }

    /// The worker's state, used by the worker thread alone.
    private final class Worker: @unchecked Sendable {
        /// The backup directory, as messages name it.
        let shown: String
        /// The file being written, named in messages by its path.
        var file: FileDescriptor?
        var cipher: FileCipher?
        var encrypting = false
        /// Ciphertext of the current file: `pending` bytes not yet written, then room for one step's (its bytes and
        /// a block) and the last block's.
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: ContentFileWriter.batchBytes + 64, alignment: 16)
        /// Bytes at the start of `output` not yet written: a step's ciphertext is written when the next step's comes
        /// or, with the last block after it, when the file closes (one `write` a small file, not two).
        var pending = 0
        /// Bytes written to content files (read by the formatter once the worker has stopped).
        var bytesWritten: UInt64 = 0
        /// The batch's whole encrypted files, made at the first batch that has one.
        var batchCipher: FileBatchCipher?

        init(shown: String) {
            self.shown = shown
        }

        deinit {
            file = nil  // closed first
            output.deallocate()
        }
    }

    static let batchBytes = 256 << 10
    /// Batches in the hand-off: 4 MiB queued a writer. A large file goes whole to one writer (AES-CBC is one stream);
    /// with 1 MiB queued the formatter soon waited on that writer while the other one ran dry (a third of the cores
    /// idle for each media file): 0.947x an encrypted and 0.943x a plain backup's time (15 alternating rounds), for up
    /// to 6 MiB more at peak (55 MiB at 200,000 files).
    static let batchCount = 16

    private let handOff: HandOff<Batch, BackupError>
    private var thread: WorkerThread?
    private let worker: Worker
    private var filling: Batch?
    /// Where the current file began: its batch, the index of its `create` step and its first data byte there; nil
    /// once the file left that batch (a batch was handed over), or when no file is open.
    private var opened: (batch: Batch, step: Int, offset: Int)?

    /// A writer of content files into the backup directory `shown` (as messages name it).
    init(shown: String) throws(SystemError) {
        worker = Worker(shown: shown)
        let handOff = HandOff<Batch, BackupError>(items: (0..<Self.batchCount).map { _ in Batch() }, wakeAfter: 2)
        self.handOff = handOff
        let worker = self.worker
        thread = try WorkerThread { Self.run(worker, handOff) }
    }

    deinit {
        cancel()
    }

    // MARK: - Formatter

    /// A content file's path in the backup directory: `<first two characters>/<fileID>`.
    static func contentPath(_ fileID: String) -> String {
        "\(fileID.prefix(2))/\(fileID)"
    }

    /// Starts the file `name` in `directory`, encrypted under `key` when one is given.
    func create(in directory: Int32, name: String, key: [UInt8]?) throws(BackupError) {
        let batch = try room(0)
        var keyOffset: Int?
        if let key {
            keyOffset = batch.keys.count
            batch.keys.append(contentsOf: key)
        }
        batch.steps.append(.create(directory: directory, name: name, keyOffset: keyOffset))
        opened = (batch, batch.steps.count - 1, batch.used)
    }

    /// The current file's next bytes (copied: `data` is the caller's to reuse at once).
    func write(_ data: UnsafeRawBufferPointer) throws(BackupError) {
        var offset = 0
        while offset < data.count {
            let batch = try room(1)
            let count = min(data.count - offset, Self.batchBytes - batch.used)
            UnsafeMutableRawBufferPointer(rebasing: batch.data[batch.used..<(batch.used + count)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: data[offset..<(offset + count)]))
            batch.steps.append(.data(offset: batch.used, count: count))
            batch.used += count
            offset += count
        }
    }

    /// The current file is complete. A file whose steps are all in the batch being filled becomes one `.whole`
    /// step (an encrypted one padded there, when the padding fits and the file is short enough to be encrypted
    /// with the batch's others).
    func close() throws(BackupError) {
        defer { opened = nil }
        if let opened, let batch = filling, opened.batch === batch,
            case .create(let directory, let name, let keyOffset) = batch.steps[opened.step]
        {
            var count = batch.used - opened.offset
            let padding = keyOffset == nil ? 0 : FileBatchCipher.padding(forLength: count)
            if padding == 0 || (count + padding <= FileBatchCipher.maximumLength && batch.used + padding <= Self.batchBytes) {
                if padding > 0 {
                    UnsafeMutableRawBufferPointer(rebasing: batch.data[batch.used..<(batch.used + padding)])
                        .initializeMemory(as: UInt8.self, repeating: UInt8(padding))
                    batch.used += padding
                    count += padding
                }
                batch.steps.removeSubrange(opened.step...)
                batch.steps.append(
                    .whole(directory: directory, name: name, keyOffset: keyOffset, offset: opened.offset, count: count))
                return
            }
        }
        try room(0).steps.append(.close)
    }

    /// Waits until every file handed over is written and closed.
    func drain() throws(BackupError) {
        try submit()
        guard handOff.waitUntilIdle() else { throw stoppedFailure }
    }

    /// Writes what is queued and stops the worker; returns the bytes it wrote.
    func finish() throws(BackupError) -> UInt64 {
        try submit()
        handOff.close()
        thread.take()?.join()
        if let failure = handOff.failure { throw failure }
        return worker.bytesWritten
    }

    /// Stops the worker without writing what is queued (the file it was writing is closed), and waits for it.
    func cancel() {
        handOff.cancel()
        thread.take()?.join()
    }

    /// The batch being filled, with `bytes` of data free (a full one handed over first).
    private func room(_ bytes: Int) throws(BackupError) -> Batch {
        if let filling, Self.batchBytes - filling.used >= bytes, filling.steps.count < 4096 { return filling }
        try submit()
        guard let spare = handOff.takeSpare() else { throw stoppedFailure }
        filling = spare
        return spare
    }

    private func submit() throws(BackupError) {
        guard let batch = filling else { return }
        filling = nil
        opened = nil  // an open file now spans batches (and this one may come back as a spare)
        guard handOff.submit(batch) else { throw stoppedFailure }
    }

    private var stoppedFailure: BackupError {
        handOff.failure ?? .output("the content file writer stopped")
    }

    // MARK: - Worker

    private static func run(_ worker: Worker, _ handOff: HandOff<Batch, BackupError>) {
        defer { worker.file = nil }  // a file left open by a failure or a cancel is closed
        while let batch = handOff.next() {
            do {
                try encryptWholeFiles(batch, worker)
                for step in batch.steps { try apply(step, batch, worker) }
            } catch {
                batch.clearKeys()
                handOff.fail(error)
                return
            }
            batch.steps.removeAll(keepingCapacity: true)
            batch.used = 0
            batch.clearKeys()
            handOff.recycle(batch)
        }
    }

    /// Encrypts the batch's whole encrypted files together, in place.
    private static func encryptWholeFiles(_ batch: Batch, _ worker: Worker) throws(BackupError) {
        guard !batch.keys.isEmpty else { return }
        let cipher = worker.batchCipher ?? FileBatchCipher()
        worker.batchCipher = cipher
        let outcome = batch.keys.withUnsafeBytes { keys -> Result<Void, MobileSyncError> in
            for step in batch.steps {
                guard case .whole(_, _, let keyOffset?, let offset, let count) = step else { continue }
                cipher.add(
                    UnsafeMutableRawBufferPointer(rebasing: batch.data[offset..<(offset + count)]),
                    key: keys.baseAddress! + keyOffset)
            }
            return Result { () throws(MobileSyncError) in try cipher.run() }
        }
        do { try outcome.get() } catch { throw .format(error) }
    }

    private static func apply(_ step: Step, _ batch: Batch, _ worker: Worker) throws(BackupError) {
        switch step {
        case .whole(let directory, let name, _, let offset, let count):
            try apply(.create(directory: directory, name: name, keyOffset: nil), batch, worker)
            try writeAll(UnsafeRawBufferPointer(rebasing: batch.data[offset..<(offset + count)]), worker)
            try apply(.close, batch, worker)
        case .create(let directory, let name, let keyOffset):
            let fd = openat(directory, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw .system(SystemError("openat", path: "\(worker.shown)/\(contentPath(name))")) }
            worker.file = FileDescriptor(rawValue: fd, path: name)  // the fileID: messages make its path
            worker.encrypting = keyOffset != nil
            if let keyOffset {
                var key = Array(batch.keys[keyOffset..<(keyOffset + 32)])
                defer { BackupEncryption.clear(&key) }
                do {
                    if let cipher = worker.cipher {
                        try cipher.restart(key: key)
                    } else {
                        worker.cipher = try FileCipher(key: key)
                    }
                } catch { throw .format(error) }
            }
        case .data(let offset, let count):
            let bytes = UnsafeRawBufferPointer(rebasing: batch.data[offset..<(offset + count)])
            guard worker.encrypting, let cipher = worker.cipher else { return try writeAll(bytes, worker) }
            try writePending(worker)
            do { worker.pending = try cipher.update(bytes, into: worker.output) } catch { throw .format(error) }
        case .close:
            if worker.encrypting, let cipher = worker.cipher {
                let room = UnsafeMutableRawBufferPointer(rebasing: worker.output[worker.pending...])
                guard let last = cipher.finish(into: room) else { throw .format(.crypto(call: "EVP_CipherFinal_ex")) }
                worker.pending += last
                try writePending(worker)
            }
            // A failed close of a written file is reported (the data may not be stored).
            guard let file = worker.file.take() else { return }
            do { try file.close() } catch {
                let path = "\(worker.shown)/\(contentPath(error.path))"
                throw .system(SystemError(error.call, path: path, code: error.code))
            }
        }
    }

    /// Writes the ciphertext waiting in the worker's output buffer.
    private static func writePending(_ worker: Worker) throws(BackupError) {
        guard worker.pending > 0 else { return }
        let count = worker.pending
        worker.pending = 0
        try writeAll(UnsafeRawBufferPointer(rebasing: worker.output[0..<count]), worker)
    }

    private static func writeAll(_ data: UnsafeRawBufferPointer, _ worker: Worker) throws(BackupError) {
        do {
            try Kernel.writeAll(
                worker.file?.rawValue ?? -1, data, path: "\(worker.shown)/\(contentPath(worker.file?.path ?? ""))")
        } catch { throw .system(error) }
        worker.bytesWritten += UInt64(data.count)
    }
}
