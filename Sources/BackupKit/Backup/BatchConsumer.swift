// BatchConsumer: the formatting thread: unpacks batches into members for the format sink, hashes file data,
// builds the manifest's file lines and the members digest.
import Foundation
import SystemKit

/// Runs on its own thread while the walker reads: for each record it hands the member to the format sink
/// (`FormatSink`: the tar writer), and feeds file data to SHA-256 in the same pass (unless the reading thread
/// hashed the file: its `.digest` record follows), so each manifest line is appended, in archive order, on this
/// thread. A file handed over (`BatchRecord.handedOver`) it reads itself from the descriptor its batch carries,
/// and checks as the reading thread checks the files it reads (`UnchangedCheck`). A sparse file's holes (`.hole`
/// records) reach the hasher and the sink as zeros. Thread safety: used by
/// the writing thread only between `start()` and the pipe's `waitForConsumer()` (or, after `runInline()`, only on
/// the reading thread); the owner reads `error` only after `waitForConsumer()`.
final class BatchConsumer<Sink: FormatSink>: @unchecked Sendable {
    let sink: Sink
    private let pipe: BatchPipe
    /// Hashes file data here and appends every file's manifest line.
    private let hasher: FileHasher
    /// The current file's data goes to `hasher` (false when the reading thread hashed it).
    private var hashingHere = false
    /// The current reader-hashed file's size, until its `.digest` record, and its path (the buffer kept for the
    /// next such file: most files are small, and the reading thread hashes most of them on some machines).
    private var pendingSize: UInt64?
    private var pendingPath: [UInt8] = []
    /// Every member's metadata, for the manifest's members line (names, types, modes, owners, times, links, xattrs);
    /// nil when the manifest is its header alone.
    let members: Manifest.MemberDigest?
    /// The first failure; the pipe is cancelled when it is set.
    private(set) var error: Error?
    /// The tree's root as messages show it (a handed-over file's errors name ROOT/path).
    private let root: String
    /// Where handed-over files are read (`readSize` bytes; allocated on first use).
    private var readBuffer: UnsafeMutableRawPointer?
    static var readSize: Int { 256 << 10 }

    /// Tests only: runs before each batch is drained, on the formatting thread, with the pipe. With a gate the
    /// formatting thread does not watch its run-queue delay: the test sets the pipe's contention itself.
    private let gate: (@Sendable (BatchPipe) -> Void)?
    /// Watches this thread's run-queue delay (`RunQueueDelay`) every `watchInterval` batches and tells the pipe
    /// (`HashPlacement.byBacklog`, without a gate).
    private let watchesRunQueue: Bool
    /// 16 batches (2 MiB): one read of schedstat a few milliseconds. 8 measured worse with one core busy (the reader
    /// hashed 20,300 of 40,065 files against 28,500: shorter intervals more often see none of the wait).
    static var watchInterval: Int { 16 }

    init(
        sink: Sink, hasher: FileHasher, pipe: BatchPipe, members: Manifest.MemberDigest?,
        root: String = "", gate: (@Sendable (BatchPipe) -> Void)? = nil, watchesRunQueue: Bool = false
    ) {
        self.root = root
        self.gate = gate
        self.watchesRunQueue = watchesRunQueue && gate == nil
        self.sink = sink
        self.hasher = hasher
        self.pipe = pipe
        self.members = members
    }

    deinit { readBuffer?.deallocate() }

    /// Starts the writing thread, kept off the reading thread's CPU when it watches its run queue (see
    /// `BatchPipe.startConsumer(spreading:)`).
    func start() throws(SystemError) {
        try pipe.startConsumer(spreading: watchesRunQueue) { [self] in run() }
    }

    /// Formats on the reading thread instead, as it hands over each batch: for a compressed backup, whose
    /// compressor has a thread of its own (see `BackupEngine.formatsInline`).
    func runInline() {
        pipe.drainInline { [unowned self] batch in _ = consume(batch) }
    }

    private func run() {
        var delay = watchesRunQueue ? RunQueueDelay() : nil
        var drained = 0
        while let batch = pipe.takeFull() {
            gate?(pipe)
            guard consume(batch) else { return }
            pipe.recycle(batch)
            drained &+= 1
            if drained % Self.watchInterval == 0, let contended = delay?.contended() {
                pipe.setFormatterContended(contended)
            }
        }
    }

    /// Drains `batch`; false (the error kept, the pipe cancelled) when that fails or failed before.
    private func consume(_ batch: Batch) -> Bool {
        guard error == nil else { return false }
        do {
            try drain(batch)
            return true
        } catch {
            self.error = error
            pipe.cancel()
            return false
        }
    }

    // MARK: - Records

    private func drain(_ batch: Batch) throws {
        var offset = 0
        while offset < batch.used {
            let record = batch.base.loadUnaligned(fromByteOffset: offset, as: BatchRecord.self)
            let start = batch.base + offset
            var cursor = start + BatchRecord.headerSize
            let kind = BatchRecord.Kind(rawValue: record.kind)!
            if kind == .data {
                try data(UnsafeRawBufferPointer(start: start + record.metadataSize, count: Int(record.dataLength)))
            } else if kind == .hole {
                try ZeroBytes.forEachChunk(record.size) { try data($0) }
            } else if kind == .membersComplete {
                try sink.membersComplete()
            } else if kind == .resume {
                // A deferred file's data: no one hashes it (only a run without digests defers).
                hashingHere = false
                try sink.resume(size: record.size)
            } else if kind == .digest {
                guard let size = pendingSize else {
                    throw BackupError.output("internal error: a digest without its file")
                }
                pendingSize = nil
                let digest = UnsafeRawBufferPointer(start: start + record.metadataSize, count: Int(record.dataLength))
                try pendingPath.withUnsafeBufferPointer { try hasher.appendLine(path: $0, size: size, sha256: digest) }
            } else {
                let path = cursor.assumingMemoryBound(to: CChar.self)
                cursor += Int(record.pathLength) + 1
                var link: [UInt8]?
                var linkName: UnsafeBufferPointer<CChar>?
                if kind == .symlink || kind == .hardlink {
                    let target = UnsafeBufferPointer(
                        start: cursor.assumingMemoryBound(to: CChar.self), count: Int(record.linkLength))
                    linkName = target
                    link = Array(UnsafeRawBufferPointer(target))
                    cursor += Int(record.linkLength) + 1
                }
                let attributes = UnsafeRawBufferPointer(start: cursor, count: Int(record.attributeBytes))
                var member = SinkMember(
                    kind: Self.memberKind(kind), path: UnsafeBufferPointer(start: path, count: Int(record.pathLength)),
                    link: linkName, mode: record.mode, uid: record.uid, gid: record.gid,
                    mtimeSeconds: record.mtimeSeconds, mtimeNanoseconds: record.mtimeNanoseconds,
                    size: kind == .file ? record.size : 0, attributes: attributes)
                member.linked = record.flags & BatchRecord.linked != 0
                member.deferred = record.flags & BatchRecord.deferred != 0
                if record.flags & BatchRecord.sparse != 0 {
                    let count = Int(record.regionCount)
                    let regions = (start + record.regionsOffset)
                        .bindMemory(to: DataRegionMap.Region.self, capacity: count)
                    member.dataRegions = UnsafeBufferPointer(start: regions, count: count)
                }
                try sink.begin(member)
                if members != nil { addToMembers(member, link: link) }
                if kind == .file && member.deferred {
                    hashingHere = false
                } else if kind == .file {
                    let name = UnsafeRawBufferPointer(start: path, count: Int(record.pathLength))
                    hashingHere = record.flags & BatchRecord.readerHashed == 0
                    if hashingHere {
                        try hasher.begin(path: name, size: record.size)
                    } else {
                        pendingPath.removeAll(keepingCapacity: true)
                        pendingPath.append(contentsOf: name)
                        pendingSize = record.size
                    }
                    try data(UnsafeRawBufferPointer(start: start + record.metadataSize, count: Int(record.dataLength)))
                    if record.flags & BatchRecord.handedOver != 0 {
                        try read(batch.carried[Int(record.carried)], name: name)
                    }
                }
            }
            offset = (offset + record.metadataSize + Int(record.dataLength) + 7) & ~7
        }
    }

    /// Reads a handed-over file whole (`ArchivingVisitor.handOver`) into the hasher and the sink, then checks that it
    /// did not change while it was read, as the reading thread checks the files it reads.
    private func read(_ file: CarriedFile, name: UnsafeRawBufferPointer) throws {
        let buffer = readBuffer ?? .allocate(byteCount: Self.readSize, alignment: 4096)
        readBuffer = buffer
        let size = file.status.size
        var offset: UInt64 = 0
        while offset < size {
            let count = Int(min(UInt64(Self.readSize), size - offset))
            let n = Kernel.read(file.descriptor, into: buffer, count: count, at: offset)
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                let path = displayPath(name)
                throw BackupError.unreadable(path: path, SystemError("read", path: path, code: code))
            }
            if n == 0 {
                throw BackupError.changed(path: displayPath(name), detail: "it ended after \(offset) of \(size) bytes")
            }
            try data(UnsafeRawBufferPointer(start: buffer, count: n))
            offset += UInt64(n)
        }
        try UnchangedCheck.afterRead(descriptor: file.descriptor, before: file.status, path: displayPath(name))
    }

    /// ROOT/path, as the walk names an entry.
    private func displayPath(_ name: UnsafeRawBufferPointer) -> String {
        WalkEntry.displayPath(root: root, String(decoding: name, as: UTF8.self))
    }

    private func data(_ chunk: UnsafeRawBufferPointer) throws {
        guard chunk.count > 0 else { return }
        if hashingHere { try hasher.feed(chunk) }
        try sink.write(chunk)
    }

    private static func memberKind(_ kind: BatchRecord.Kind) -> SinkMember.Kind {
        switch kind {
        case .directory: .directory
        case .symlink: .symlink
        case .hardlink: .hardlink
        default: .file
        }
    }

    /// The member's canonical record, exactly as restore and verify will see it read back.
    private func addToMembers(_ member: SinkMember, link: [UInt8]?) {
        let letter: Character =
            switch member.kind {
            case .directory: "d"
            case .file: "f"
            case .symlink: "l"
            case .hardlink: "h"
            }
        var xattrs: [(name: String, value: [UInt8])] = []
        member.forEachAttribute { name, value in
            xattrs.append((String(decoding: UnsafeRawBufferPointer(name), as: UTF8.self), Array(value)))
        }
        members?.add(
            kind: letter.asciiValue!, path: Array(UnsafeRawBufferPointer(member.path)),
            permissions: member.mode & 0o7777, uid: Int64(member.uid), gid: Int64(member.gid), size: member.size,
            mtimeSeconds: member.mtimeSeconds, mtimeNanoseconds: Int32(truncatingIfNeeded: member.mtimeNanoseconds),
            link: link, xattrs: xattrs)
    }
}
