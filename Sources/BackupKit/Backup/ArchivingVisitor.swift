// ArchivingVisitor: the reading side of a backup: packs each walked entry, and file data read straight
// into the batch, for the writing thread; checks that no file changed while it was read.
import Glibc
import SystemKit

/// Turns walked entries into batch records (`BatchRecord`). File data is read once, in large reads,
/// directly into the batch that carries it to the writing thread, which archives it and hashes it, unless the
/// run's `HashPlacement` is this thread (then a digest record follows each file's data).
/// A file with holes (fewer blocks allocated than its size needs, by a hole's worth: `DataRegionMap.mayHaveHoles`)
/// is asked where its data lies; only its data regions are read, and each hole goes as a `.hole` record, zeros the
/// writing thread hashes and hands to the format (the tar format stores a sparse member).
/// A file whose size, mtime, inode or ctime differ after reading, or that reads short, fails the backup naming it.
/// ctime (as GNU tar compares it) catches a file rewritten in place with its mtime put back, which would
/// otherwise be archived torn (the old start, the new end) under a digest that verifies.
/// With `handsOver` (a plain tar backup), a whole file of at least its size is not read here: its record carries
/// its open descriptor (`CarriedFile`) and the writing thread reads, hashes and checks it (`handOver`).
/// With `deferFrom` (a MobileSync backup, which hashes nothing), up to `maximumDeferred` files of at least that size
/// (whole, with one name) are packed as members during the walk but read after it (`readDeferred()`, their
/// descriptors kept open until then): the format then has every member, and finishes its index while their data
/// is still being written (`BatchRecord.deferred`).
final class ArchivingVisitor: TreeVisitor {
    /// A file to read: its open descriptor, its status before reading and its name in messages. The walk's entry
    /// during the walk (its name built only when a message needs it), a `DeferredFile` after it; the reading code is
    /// specialized for each.
    fileprivate protocol ReadableFile {
        var descriptor: Int32 { get }
        var status: FileStatus { get }
        var displayPath: String { get }
    }

    /// A file read after the walk: a duplicate of the walk's descriptor (this visitor's to close), the walk's status.
    private struct DeferredFile: ReadableFile {
        let descriptor: Int32
        let status: FileStatus
        let displayPath: String
    }

    /// Files deferred at most: each holds a descriptor until the walk ends.
    static let maximumDeferred = 32
    private let pipe: BatchPipe
    /// Hashes every file, when this thread is the run's `HashPlacement`.
    private let digest: SHA256Digest
    private let hashesHere: Bool
    /// Hashes the files it reads while the writing thread is behind (`HashPlacement.byBacklog`): decided when a batch
    /// is taken (`writerBehind`: every batch was full and waiting; while the formatting thread shares a core, a batch
    /// was waiting beside the one it drains), for the files that start in it; and its `share` of the others.
    private let hashesByBacklog: Bool
    private var writerBehind = false
    /// The share of files this thread hashes besides (`HashPlacement.byBacklog`), from the threads' waits.
    private var share = HashShare()
    private var batchesTaken = 0
    private var batch: Batch?
    private var hardLinks = HardLinkTable()
    private var progress: ProgressThrottle
    private let warn: (String) -> Void
    /// Tests only: runs after a file's data was read, before its status is checked again.
    private let afterRead: ((String) -> Void)?
    /// Tests only: runs after each read of a file's data that leaves more to read (path, bytes read so far).
    private let duringRead: ((String, UInt64) -> Void)?
    /// Receives each member's path as it is packed, in archive order (`backup -v`); nil costs one branch.
    private let stored: ((StoredPath) -> Void)?
    /// Encoded `user.*` attributes of the current entry (reused).
    private var attributeScratch: [UInt8] = []
    /// While a file is read: the offset, in the current batch, of the open record's `dataLength` (nil after a hole,
    /// until the next data opens a `.data` record), and the bytes that record holds so far.
    private var lengthField: Int?
    private var recordData = 0
    private(set) var tally = BackupTally()
    private(set) var warnings = 0
    /// Files of at least this many bytes are read after the walk (nil: none).
    private let deferFrom: UInt64?
    /// Files packed and not yet read, in member order; their descriptors are this visitor's (duplicates).
    private var deferred: [DeferredFile] = []
    /// The files handed over (whole, no holes, of at least `from` bytes): their records carry their open
    /// descriptors and the writing thread reads them itself, so their data never passes from this thread's core to
    /// the other's. Two threads that pass every byte between them were 15% slower whenever the host placed the two
    /// virtual CPUs far apart (a 128 KiB hand-off between them at 2 GB/s against 6.7; a one-thread tar is out of
    /// reach of that). Nil: none (a compressed backup formats on this thread; MobileSync reads after the walk).
    private let handsOver: HandOverPolicy?

    init(
        pipe: BatchPipe, progress: ProgressThrottle, warn: @escaping (String) -> Void,
        afterRead: ((String) -> Void)? = nil, duringRead: ((String, UInt64) -> Void)? = nil,
        placement: HashPlacement = .default, stored: ((StoredPath) -> Void)? = nil, deferFrom: UInt64? = nil,
        handsOver: HandOverPolicy? = nil
    ) throws {
        // Deferred data is hashed by no one: only a run that keeps no digests defers.
        self.deferFrom = placement == .nowhere ? deferFrom : nil
        // The test hooks run where the data is read: on this thread.
        self.handsOver = afterRead == nil && duringRead == nil ? handsOver : nil
        self.stored = stored
        self.pipe = pipe
        hashesHere = placement == .reader
        hashesByBacklog = placement == .byBacklog
        do { digest = try SHA256Digest() } catch let error as DigestError { throw BackupError.digest(error) }
        self.progress = progress
        self.warn = warn
        self.afterRead = afterRead
        self.duringRead = duringRead
        attributeScratch.reserveCapacity(1024)
    }

    deinit {
        for file in deferred { close(file.descriptor) }
    }

    var elapsed: Double { progress.elapsed }

    func finishProgress() { progress.finish(files: tally.counts.files, bytes: tally.counts.bytes, counted: tally.countedFiles) }

    /// After the walk: marks every member packed (`.membersComplete`) and reads the deferred files, in member order,
    /// each after a `.resume` record, checking each as a file read during the walk is checked. Nothing when none was
    /// deferred.
    func readDeferred() throws {
        guard !deferred.isEmpty else { return }
        try appendBare(.membersComplete, size: 0)
        while !deferred.isEmpty {
            let file = deferred.removeFirst()
            defer { close(file.descriptor) }
            try appendBare(.resume, size: file.status.size)
            try copyData(file, recordOffset: nil, hashing: false, regions: nil)
            tally.counts.bytes += file.status.size
            progress.tick(files: tally.counts.files, bytes: tally.counts.bytes, counted: tally.countedFiles)
        }
    }

    /// Hands over the last partly filled batch and tells the writer nothing more comes.
    func finish() {
        if let batch, batch.used > 0 { pipe.submit(batch) }
        batch = nil
        pipe.finish()
    }

    // MARK: - TreeVisitor

    func excluded(_ entry: WalkEntry, reasons: ExclusionReasons) throws {
        tally.exclude(
            reasons: reasons, bytes: entry.status.kind == .regular ? entry.status.size : 0,
            directory: entry.status.kind == .directory)
        // A file only its attributes exclude is one `FileCounter` counted: the walk has passed it.
        if entry.status.kind == .regular, reasons.isDisjoint(with: .pathOnly) { tally.attributeExcludedFiles += 1 }
    }

    func directory(_ walked: WalkEntry, attributes: AttributeReader) throws {
        try encodeAttributes(attributes, of: walked)
        _ = try append(.directory, walked, link: nil)
        tally.counts.directories += 1
    }

    func symlink(_ walked: WalkEntry, target: UnsafeBufferPointer<UInt8>) throws {
        attributeScratch.removeAll(keepingCapacity: true)
        _ = try append(.symlink, walked, link: target)
        tally.counts.symlinks += 1
    }

    func regularFile(_ walked: WalkEntry, attributes: AttributeReader) throws -> Bool {
        let status = walked.status
        if status.linkCount > 1, let target = hardLinks.target(device: status.device, inode: status.inode) {
            attributeScratch.removeAll(keepingCapacity: true)
            try target.withUnsafeBufferPointer { name in
                try name.withMemoryRebound(to: UInt8.self) { bytes in
                    _ = try append(.hardlink, walked, link: UnsafeBufferPointer(rebasing: bytes.dropLast()))
                }
            }
            tally.counts.hardlinks += 1
            return false
        }
        try encodeAttributes(attributes, of: walked)
        if let deferFrom, status.size >= deferFrom, status.linkCount == 1, !DataRegionMap.mayHaveHoles(status),
            deferred.count < Self.maximumDeferred
        {
            let copy = fcntl(walked.descriptor, F_DUPFD_CLOEXEC, 0)
            if copy >= 0 {
                deferred.append(DeferredFile(descriptor: copy, status: status, displayPath: walked.displayPath))
                _ = try append(.file, walked, link: nil, flags: BatchRecord.deferred)
                tally.counts.files += 1
                progress.tick(files: tally.counts.files, bytes: tally.counts.bytes, counted: tally.countedFiles)
                return false
            }
        }
        // Only a file with fewer blocks than its size needs is asked where its holes are: no call for the others.
        let regions = DataRegionMap.mayHaveHoles(status) ? try dataRegions(walked) : nil
        if regions != nil { tally.sparseBytes &+= status.size }
        // Not while the formatting thread waits for a CPU (it shares a core with another process): then this thread's
        // time is the cheaper, and a file handed over could not have its hash taken back.
        let handedOver = handsOver.map {
            status.size >= $0.from && regions == nil && walked.descriptor < $0.descriptorLimit
                && !pipe.formatterIsContended
        } ?? false
        if handedOver {
            try handOver(walked)
        } else {
            // By backlog: every batch is full and waiting for the writing thread, so this thread takes the file's
            // hash; and besides, its share of the files, where the threads wait on each other alike.
            let hashing = hashesHere || writerBehind || (hashesByBacklog && share.readerHashesNext())
            if hashing { tally.filesHashedByReader += 1 }
            let flags = (hashing ? BatchRecord.readerHashed : 0) | (regions != nil ? BatchRecord.sparse : 0)
                | (status.linkCount > 1 ? BatchRecord.linked : 0)
            let recordOffset = try append(.file, walked, link: nil, flags: flags, regions: regions?.regions)
            try copyData(walked, recordOffset: recordOffset, hashing: hashing, regions: regions)
        }
        hardLinks.remember(device: status.device, inode: status.inode, name: walked.path.cString, links: status.linkCount)
        tally.counts.files += 1
        tally.counts.bytes += status.size
        progress.tick(files: tally.counts.files, bytes: tally.counts.bytes, counted: tally.countedFiles)
        return handedOver
    }

    /// Packs a `.file` record without data for the writing thread to read, the batch taking the descriptor.
    private func handOver(_ walked: WalkEntry) throws {
        let flags = BatchRecord.handedOver | (walked.status.linkCount > 1 ? BatchRecord.linked : 0)
        let offset = try append(.file, walked, link: nil, flags: flags)
        let index = batch!.carry(CarriedFile(descriptor: walked.descriptor, status: walked.status))
        batch!.base.storeBytes(of: UInt32(index), toByteOffset: offset + BatchRecord.carriedOffset, as: UInt32.self)
    }

    func skipped(path: String, reason: WalkSkip) {
        switch reason {
        case .ownArchive:
            return
        case .replacedArchive:
            warn("\(path): file is the archive; not dumped")
        case .otherFileSystem:
            warn("\(path): file is on a different file system; not dumped")
        case .special(let kind):
            warn("skipping \(path): a \(Self.kindName(kind)) cannot be stored in a tar archive")
        case .invalidName:
            warn("skipping \(path): its name is not valid UTF-8")
        case .reservedName:
            warn("skipping \(path): the name is reserved for the backup manifest")
        case .restoreStaging:
            warn("skipping \(path): a restore's staging directory (left by an interrupted restore; never restorable)")
        }
        warnings += 1
    }

    // MARK: - Records

    /// A batch with at least `bytes` free (a fresh one when the current one is too full).
    private func room(_ bytes: Int) throws -> Batch {
        if let batch, batch.free >= bytes { return batch }
        if let batch { pipe.submit(batch) }
        batch = nil
        if hashesByBacklog {
            // Behind: every batch is full and waiting; or, while the formatting thread waits for a CPU (it shares a
            // core: its drains are slow, and this thread's time is the cheaper), a batch waits beside the one it drains.
            writerBehind = pipe.formatterIsContended ? pipe.spareCount < pipe.count - 1 : !pipe.hasSpare
            batchesTaken += 1
            if batchesTaken % HashShare.interval == 0 {
                let waited = pipe.waited
                share.observe(
                    time: MonotonicClock.nanoseconds(), readerWaited: waited.reader, formatterWaited: waited.formatter)
            }
        }
        guard let fresh = pipe.takeEmpty() else { throw BackupError.output("the archive writer stopped") }
        fresh.reserve(bytes)
        batch = fresh
        return fresh
    }

    /// Appends a member record (without data); returns its offset in the current batch.
    private func append(
        _ kind: BatchRecord.Kind, _ walked: WalkEntry, link: UnsafeBufferPointer<UInt8>?, flags: UInt8 = 0,
        regions: [DataRegionMap.Region]? = nil
    ) throws -> Int {
        let status = walked.status
        if let stored { stored(StoredPath(path: walked.path.string, kind: status.kind)) }
        var record = BatchRecord(kind: kind.rawValue, flags: flags)
        record.pathLength = UInt32(walked.path.length)
        record.linkLength = UInt32(link?.count ?? 0)
        record.attributeBytes = UInt32(attributeScratch.count)
        record.mode = status.mode
        record.uid = status.uid
        record.gid = status.gid
        record.mtimeSeconds = status.mtimeSeconds
        record.mtimeNanoseconds = status.mtimeNanoseconds
        record.size = kind == .file ? status.size : 0
        record.regionCount = UInt32(regions?.count ?? 0)
        // A small file travels with its header: ask for room for both when it is cheap to.
        let small = kind == .file && status.size <= 64 * 1024 && regions == nil
            && flags & (BatchRecord.deferred | BatchRecord.handedOver) == 0
        let wanted = record.metadataSize + (small ? Int(status.size) : 0)
        let target = try room(wanted)
        let offset = target.used
        let base = target.base + offset
        base.storeBytes(of: record, as: BatchRecord.self)
        var cursor = base + BatchRecord.headerSize
        cursor.copyMemory(from: walked.path.base, byteCount: walked.path.length + 1)
        cursor += walked.path.length + 1
        if let link {
            cursor.copyMemory(from: link.baseAddress!, byteCount: link.count)
            cursor.storeBytes(of: 0, toByteOffset: link.count, as: UInt8.self)
            cursor += link.count + 1
        }
        attributeScratch.withUnsafeBytes { cursor.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        if let regions {
            var at = base + record.regionsOffset
            for region in regions {
                at.storeBytes(of: region, as: DataRegionMap.Region.self)
                at += BatchRecord.regionSize
            }
        }
        target.used = offset + record.metadataSize
        return offset
    }

    /// Reads the file into batches (one `.file` record, then `.data` records when it spills over; for a file with
    /// holes, only its data regions, each hole a `.hole` record), then checks that it did not change while it was
    /// read. With `hashing`, a `.digest` record follows.
    /// `recordOffset`: the `.file` record's offset in the current batch, whose data the first bytes go into (nil: a
    /// `.data` record opens for them).
    private func copyData<File: ReadableFile>(
        _ walked: File, recordOffset: Int?, hashing: Bool, regions map: DataRegionMap?
    ) throws {
        lengthField = recordOffset.map { $0 + BatchRecord.dataLengthOffset }
        recordData = 0
        if hashing { try resetDigest() }
        if let map {
            var position: UInt64 = 0
            for region in map.regions {
                if region.offset > position {
                    try appendHole(region.offset - position, endingAt: region.offset, hashing: hashing)
                }
                try read(walked, at: region.offset, count: region.length, hashing: hashing)
                position = region.end
            }
            if map.size > position { try appendHole(map.size - position, endingAt: map.size, hashing: hashing) }
        } else {
            try read(walked, at: 0, count: walked.status.size, hashing: hashing)
        }
        closeDataRecord()
        afterRead?(walked.displayPath)
        try checkUnchanged(walked)
        if hashing { try appendDigest() }
    }

    /// Reads `count` bytes of the file at `start` into the open data record (after a hole, a new `.data` record),
    /// continuing in `.data` records in fresh batches.
    private func read<File: ReadableFile>(_ walked: File, at start: UInt64, count: UInt64, hashing: Bool) throws {
        let expected = walked.status.size
        let end = start + count
        var offset = start
        var current = batch!
        while offset < end {
            let remaining = end - offset
            if lengthField == nil || (current.free < 4096 && UInt64(current.free) < remaining) {
                // Close this record (the writer finds the next one at the aligned offset past the batch's end,
                // so it stops there) and continue in a `.data` record, in a fresh batch when this one is full.
                closeDataRecord()
                current = try room(BatchRecord.headerSize + 4096)
                let record = BatchRecord(kind: BatchRecord.Kind.data.rawValue)
                current.base.storeBytes(of: record, toByteOffset: current.used, as: BatchRecord.self)
                lengthField = current.used + BatchRecord.dataLengthOffset
                current.used += record.metadataSize
            }
            let want = Int(min(UInt64(current.free), remaining, UInt64(UInt32.max / 2)))
            let n = Kernel.read(walked.descriptor, into: current.base + current.used, count: want, at: offset)
            if n < 0 {
                let code = errno
                if code == EINTR { continue }
                throw BackupError.unreadable(
                    path: walked.displayPath, SystemError("read", path: walked.displayPath, code: code))
            }
            if n == 0 {
                throw BackupError.changed(
                    path: walked.displayPath, detail: "it ended after \(offset) of \(expected) bytes")
            }
            if hashing { digest.update(UnsafeRawBufferPointer(start: current.base + current.used, count: n)) }
            current.used += n
            recordData += n
            offset += UInt64(n)
            if expected > 1 << 20 { progress.tick(files: tally.counts.files, bytes: tally.counts.bytes + offset, counted: tally.countedFiles) }
            if offset < expected, let duringRead { duringRead(walked.displayPath, offset) }
        }
    }

    /// Ends the open data record: stores its length and aligns the batch for the next record.
    private func closeDataRecord() {
        guard let field = lengthField, let batch else { return }
        batch.base.storeBytes(of: UInt32(recordData), toByteOffset: field, as: UInt32.self)
        batch.used = min((batch.used + 7) & ~7, batch.capacity)
        lengthField = nil
        recordData = 0
    }

    /// A record of `kind` with no path and no data (`.membersComplete`, `.resume`), after the open data record.
    private func appendBare(_ kind: BatchRecord.Kind, size: UInt64) throws {
        closeDataRecord()
        var record = BatchRecord(kind: kind.rawValue)
        record.size = size
        let target = try room(record.metadataSize)
        target.base.storeBytes(of: record, toByteOffset: target.used, as: BatchRecord.self)
        target.used += record.metadataSize
    }

    /// A hole of `length` zero bytes up to `end`: a `.hole` record (no data: nothing is read), hashed as zeros.
    private func appendHole(_ length: UInt64, endingAt end: UInt64, hashing: Bool) throws {
        closeDataRecord()
        var record = BatchRecord(kind: BatchRecord.Kind.hole.rawValue)
        record.size = length
        let target = try room(record.metadataSize)
        target.base.storeBytes(of: record, toByteOffset: target.used, as: BatchRecord.self)
        target.used += record.metadataSize
        if hashing { ZeroBytes.forEachChunk(length) { digest.update($0) } }
        progress.tick(files: tally.counts.files, bytes: tally.counts.bytes + end, counted: tally.countedFiles)
    }

    /// Where the file's data lies, when it has holes worth keeping (nil: read it whole).
    private func dataRegions(_ walked: WalkEntry) throws -> DataRegionMap? {
        do {
            return try DataRegionMap.scan(
                descriptor: walked.descriptor, size: walked.status.size, path: walked.displayPath)
        } catch {
            throw BackupError.unreadable(path: walked.displayPath, error)
        }
    }

    private func resetDigest() throws {
        do { try digest.reset() } catch let error as DigestError { throw BackupError.digest(error) }
    }

    /// The `.digest` record of the file just read: its SHA-256 as 32 bytes of data.
    private func appendDigest() throws {
        var record = BatchRecord(kind: BatchRecord.Kind.digest.rawValue)
        record.dataLength = UInt32(SHA256Digest.length)
        let target = try room(record.metadataSize + SHA256Digest.length)
        let offset = target.used
        target.base.storeBytes(of: record, toByteOffset: offset, as: BatchRecord.self)
        digest.finalize(into: target.base + offset + record.metadataSize)
        target.used = offset + record.metadataSize + SHA256Digest.length
    }

    private func checkUnchanged<File: ReadableFile>(_ walked: File) throws {
        try UnchangedCheck.afterRead(descriptor: walked.descriptor, before: walked.status, path: walked.displayPath)
    }

    /// Encodes the entry's `user.*` attributes into `attributeScratch`, sorted by name.
    private func encodeAttributes(_ attributes: AttributeReader, of walked: WalkEntry) throws {
        attributeScratch.removeAll(keepingCapacity: true)
        guard !attributes.isEmpty else { return }
        do {
            try attributes.forEachUserAttribute(path: walked.displayPath) { name, value in
                // A pax record is `key=value`: a name with `=` would be read back as another name and value, and the
                // archive would fail its own members digest. Not stored, and said (Linux allows the byte).
                if strchr(name, Int32(UInt8(ascii: "="))) != nil {
                    warn("\(walked.displayPath): extended attribute \(String(cString: name)) not stored: its name "
                        + "contains '=', which a pax header cannot hold")
                    warnings += 1
                    return
                }
                let nameLength = strlen(name)
                withUnsafeBytes(of: UInt32(nameLength)) { attributeScratch.append(contentsOf: $0) }
                withUnsafeBytes(of: UInt32(value.count)) { attributeScratch.append(contentsOf: $0) }
                attributeScratch.append(contentsOf: UnsafeRawBufferPointer(start: name, count: nameLength + 1))
                attributeScratch.append(contentsOf: value)
            }
        } catch let error as SystemError {
            throw BackupError.unreadable(path: walked.displayPath, error)
        }
    }

    static func kindName(_ kind: FileKind) -> String {
        switch kind {
        case .socket: "socket"
        case .fifo: "FIFO"
        case .characterDevice: "character device"
        case .blockDevice: "block device"
        default: "special file"
        }
    }
}

extension WalkEntry: ArchivingVisitor.ReadableFile {}
