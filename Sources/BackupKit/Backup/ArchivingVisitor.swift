// ArchivingVisitor: turns walked entries into tar members, hashing file data in the same pass.
import CSupport
import Glibc
import SystemKit

/// Writes each entry the walker reports: directories, symlinks (as links), regular files read once in
/// large blocks feeding both SHA-256 and libarchive, hard links as link members. A file whose size,
/// mtime or inode differ after reading, or that reads short, fails the backup naming it.
final class ArchivingVisitor: TreeVisitor {
    /// Read block size: large reads, few syscalls.
    static let blockSize = 1 << 20

    private let writer: ArchiveWriter
    private let manifest: ManifestWriter
    private let entry = ArchiveEntry()
    private let digest: SHA256Digest
    private let block = UnsafeMutableRawBufferPointer.allocate(byteCount: ArchivingVisitor.blockSize, alignment: 4096)
    private var hardLinks = HardLinkTable()
    private var progress: ProgressThrottle
    private let warn: (String) -> Void
    /// Tests only: runs after a file's data was read, before its status is checked again.
    private let afterRead: ((String) -> Void)?
    private(set) var tally = BackupTally()
    private(set) var warnings = 0

    init(
        writer: ArchiveWriter, manifest: ManifestWriter, progress: ProgressThrottle,
        warn: @escaping (String) -> Void, afterRead: ((String) -> Void)? = nil
    ) throws {
        self.writer = writer
        self.manifest = manifest
        self.progress = progress
        self.warn = warn
        self.afterRead = afterRead
        do { digest = try SHA256Digest() } catch let error as DigestError { throw BackupError.digest(error) }
    }

    deinit { block.deallocate() }

    var elapsed: Double { progress.elapsed }

    func finishProgress() { progress.finish(files: tally.files, bytes: tally.bytes) }

    // MARK: - TreeVisitor

    func excluded(_ entry: WalkEntry, reasons: ExclusionReasons) throws {
        tally.exclude(reasons: reasons, bytes: entry.status.kind == .regular ? entry.status.size : 0)
    }

    func directory(_ walked: WalkEntry, attributes: AttributeReader) throws {
        entry.clear()
        entry.setPath(walked.path.cString)
        entry.setMetadata(walked.status)
        try addAttributes(attributes, of: walked)
        try write(walked)
        tally.directories += 1
    }

    func symlink(_ walked: WalkEntry, target: UnsafeBufferPointer<UInt8>) throws {
        entry.clear()
        entry.setPath(walked.path.cString)
        entry.setMetadata(walked.status)
        entry.setSymlink(UnsafeRawPointer(target.baseAddress!).assumingMemoryBound(to: CChar.self))
        try write(walked)
        tally.symlinks += 1
    }

    func regularFile(_ walked: WalkEntry, attributes: AttributeReader) throws {
        let status = walked.status
        entry.clear()
        entry.setPath(walked.path.cString)
        entry.setMetadata(status)
        if status.linkCount > 1, let target = hardLinks.target(device: status.device, inode: status.inode) {
            target.withUnsafeBufferPointer { entry.setHardlink($0.baseAddress!) }
            try write(walked)
            tally.hardlinks += 1
            return
        }
        try addAttributes(attributes, of: walked)
        try write(walked)
        try copyData(walked)
        do {
            try manifest.appendFile(path: walked.path.bytes, size: status.size, sha256: digest.finalize())
        } catch {
            throw BackupError.system(error)
        }
        hardLinks.remember(device: status.device, inode: status.inode, name: walked.path.cString, links: status.linkCount)
        tally.files += 1
        tally.bytes += status.size
        progress.tick(files: tally.files, bytes: tally.bytes)
    }

    func skipped(path: String, reason: WalkSkip) {
        switch reason {
        case .ownArchive:
            return
        case .special(let kind):
            warn("skipping \(path): a \(Self.kindName(kind)) cannot be stored in a tar archive")
        case .invalidName:
            warn("skipping \(path): its name is not valid UTF-8")
        case .reservedName:
            warn("skipping \(path): the name is reserved for the backup manifest")
        }
        warnings += 1
    }

    // MARK: - Data

    /// Reads the file once in large blocks into SHA-256 and the archive, then checks it did not change.
    private func copyData(_ walked: WalkEntry) throws {
        let fd = walked.descriptor
        let expected = walked.status.size
        try digest.reset()
        var remaining = expected
        while remaining > 0 {
            let want = Int(min(UInt64(block.count), remaining))
            let n = read(fd, block.baseAddress, want)
            if n < 0 {
                if errno == EINTR { continue }
                throw BackupError.unreadable(path: walked.displayPath, SystemError("read", path: walked.displayPath))
            }
            if n == 0 {
                throw BackupError.changed(
                    path: walked.displayPath, detail: "it ended after \(expected - remaining) of \(expected) bytes")
            }
            let chunk = UnsafeRawBufferPointer(rebasing: block[0..<n])
            digest.update(chunk)
            do { try writer.writeData(chunk) } catch { throw BackupError.archive(error) }
            remaining -= UInt64(n)
            if expected > UInt64(block.count) { progress.tick(files: tally.files, bytes: tally.bytes + expected - remaining) }
        }
        afterRead?(walked.displayPath)
        var raw = csupport_stat()
        if csupport_statx(fd, "", CSUPPORT_AT_EMPTY_PATH, &raw) != 0 {
            throw BackupError.unreadable(path: walked.displayPath, SystemError("statx", path: walked.displayPath))
        }
        let after = FileStatus(raw)
        let before = walked.status
        if after.size != before.size {
            throw BackupError.changed(path: walked.displayPath, detail: "size \(before.size) -> \(after.size) bytes")
        }
        if after.mtimeSeconds != before.mtimeSeconds || after.mtimeNanoseconds != before.mtimeNanoseconds {
            throw BackupError.changed(path: walked.displayPath, detail: "its modification time changed")
        }
        if after.inode != before.inode || after.device != before.device {
            throw BackupError.changed(path: walked.displayPath, detail: "it was replaced by another file")
        }
    }

    private func addAttributes(_ attributes: AttributeReader, of walked: WalkEntry) throws {
        guard !attributes.isEmpty else { return }
        do {
            try attributes.forEachUserAttribute(path: walked.displayPath) { name, value in
                entry.addExtendedAttribute(name: name, value: value)
            }
        } catch let error as SystemError {
            throw BackupError.unreadable(path: walked.displayPath, error)
        }
    }

    private func write(_ walked: WalkEntry) throws {
        do { try writer.writeHeader(entry) } catch { throw BackupError.archive(error) }
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
