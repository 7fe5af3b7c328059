// StagingPipeline: the staging tree's writes on a second thread, while the first reads, checks and hashes.
//
// The reader thread (libarchive, the framing audit, SHA-256, the manifest) and the writer thread (openat2,
// pwrite, futimens, close: mostly kernel time) overlap on the machine's two cores. Batches carry a copy of
// the file data (libarchive reuses its buffers), so memory stays at three small arenas whatever the archive.
import CSupport
import Glibc
import SystemKit

/// Hands batches of `StagingOp` to a writer thread that applies them to a `StagingTree`, in order.
final class StagingPipeline: @unchecked Sendable {
    private let tree: StagingTree
    private let condition = ConditionVariable()
    private var ready: [StagingBatch] = []
    private var spare: [StagingBatch] = [StagingBatch(), StagingBatch()]
    private var closed = false
    private var stopped = false
    private var running = true
    private var failure: (any Error)?
    /// The batch the reader is filling (reader thread only).
    private var current = StagingBatch()
    /// The file the writer is filling (writer thread only).
    private var file: FileDescriptor?

    init(tree: StagingTree) {
        self.tree = tree
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let status = pthread_create(&thread, nil, { context in
            let pipeline = Unmanaged<StagingPipeline>.fromOpaque(context!).takeRetainedValue()
            pipeline.run()
            return nil
        }, context)
        if status == 0 {
            pthread_detach(thread)
        } else {
            // No second thread: fail the first submission instead of hanging.
            Unmanaged<StagingPipeline>.fromOpaque(context).release()
            failure = SystemError("pthread_create", code: status)
            running = false
        }
    }

    // MARK: - Reader side

    /// Queues `operation`.
    func add(_ operation: StagingOp) throws {
        current.operations.append(operation)
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

    /// Hands the current batch to the writer and takes a spare one (waiting while the writer is behind).
    /// Throws the writer's failure as soon as there is one.
    private func submit() throws {
        condition.lock()
        defer { condition.unlock() }
        if let failure { throw failure }
        ready.append(current)
        condition.broadcast()
        while spare.isEmpty && failure == nil { condition.wait() }
        if let failure { throw failure }
        current = spare.removeLast()
        current.reset()
    }

    /// Writes everything queued, waits for the writer to finish, and throws its failure if it had one.
    func finish() throws {
        condition.lock()
        if !current.operations.isEmpty { ready.append(current) }
        closed = true
        condition.broadcast()
        while running { condition.wait() }
        let failure = self.failure
        condition.unlock()
        if let failure { throw failure }
    }

    /// Stops the writer after a failure on the reader side (queued writes are dropped) and waits for it.
    /// Returns the writer's own failure, which concerns an earlier member and so is the one to report.
    func stop() -> (any Error)? {
        condition.lock()
        stopped = true
        closed = true
        condition.broadcast()
        while running { condition.wait() }
        let failure = self.failure
        condition.unlock()
        return failure
    }

    // MARK: - Writer thread

    private func run() {
        while true {
            condition.lock()
            while ready.isEmpty && !closed { condition.wait() }
            if stopped || ready.isEmpty {
                running = false
                condition.broadcast()
                condition.unlock()
                break
            }
            let batch = ready.removeFirst()
            let failed = failure != nil
            condition.unlock()
            if !failed {
                do {
                    try execute(batch)
                } catch {
                    condition.lock()
                    failure = error
                    condition.unlock()
                }
            }
            condition.lock()
            spare.append(batch)
            condition.broadcast()
            condition.unlock()
        }
        try? file?.close()
        file = nil
    }

    private func execute(_ batch: StagingBatch) throws {
        for operation in batch.operations {
            switch operation {
            case .directory(let path, let permissions, let mtime, let owner, let xattrs):
                try tree.createDirectory(path, permissions: permissions, mtime: mtime)
                if let owner { try tree.changeOwner(path, uid: owner.uid, gid: owner.gid) }
                if !xattrs.isEmpty {
                    let fd = try tree.openDirectory(path)
                    try StagingPipeline.setXattrs(xattrs, on: fd.rawValue, path: path.text)
                    try fd.close()
                }
            case .symlink(let path, let target, let owner, let mtime):
                try tree.createSymlink(path, target: target)
                if let owner { try tree.changeOwner(path, uid: owner.uid, gid: owner.gid) }
                if let mtime { try tree.setModificationTime(path, mtime) }
            case .hardLink(let path, let target):
                try tree.createHardLink(path, to: target)
            case .createFile(let path, let permissions):
                file = try tree.createFile(path, permissions: permissions)
            case .data(let offset, let start, let count):
                guard let file else { continue }
                var done = 0
                while done < count {
                    let n = try SystemError.check("write", path: file.path) {
                        pwrite(
                            file.rawValue, batch.arena.baseAddress! + start + done, count - done,
                            off_t(offset) + off_t(done))
                    }
                    done += n
                }
            case .closeFile(let truncateTo, let owner, let chmod, let xattrs, let mtime):
                guard let file else { continue }
                let fd = file.rawValue
                if let size = truncateTo {
                    try SystemError.check("ftruncate", path: file.path) { ftruncate(fd, off_t(size)) }
                }
                if let owner { try SystemError.check("fchown", path: file.path) { fchown(fd, owner.uid, owner.gid) } }
                if let chmod { try SystemError.check("fchmod", path: file.path) { fchmod(fd, chmod) } }
                if !xattrs.isEmpty { try StagingPipeline.setXattrs(xattrs, on: fd, path: file.path) }
                if let mtime {
                    var times = [timespec(tv_sec: 0, tv_nsec: CSUPPORT_UTIME_OMIT), mtime]
                    try SystemError.check("futimens", path: file.path) { futimens(fd, &times) }
                }
                try file.close()
                self.file = nil
            }
        }
    }

    private static func setXattrs(_ xattrs: [(name: String, value: [UInt8])], on fd: Int32, path: String) throws {
        for (name, value) in xattrs {
            try SystemError.check("fsetxattr \(name)", path: path) {
                value.withUnsafeBytes { fsetxattr(fd, name, $0.baseAddress, value.count, 0) }
            }
        }
    }
}
