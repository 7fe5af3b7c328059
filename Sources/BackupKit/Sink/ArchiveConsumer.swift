// ArchiveConsumer: the formatting thread: unpacks batches into tar members, hashes file data, builds the manifest.
import Foundation
import SystemKit
import TarKit

/// Runs on its own thread while the walker reads: for each record it fills the libarchive entry and
/// writes it, and feeds file data to SHA-256 in the same pass (unless the reading thread hashed the file:
/// its `.digest` record follows), so each manifest line is appended, in archive order, on this thread.
/// Thread safety: used by the writing thread only between `start()` and the pipe's `waitForConsumer()`
/// (or, after `runInline()`, only on the reading thread); the owner reads `error` only after `waitForConsumer()`.
final class ArchiveConsumer: @unchecked Sendable {
    let writer: ArchiveWriter
    private let pipe: BatchPipe
    private let entry = ArchiveEntry()
    /// Hashes file data here and appends every file's manifest line.
    private let hasher: FileHasher
    /// The current file's data goes to `hasher` (false when the reading thread hashed it).
    private var hashingHere = false
    /// The current reader-hashed file, until its `.digest` record.
    private var pending: (path: [UInt8], size: UInt64)?
    /// Every member's metadata, for the manifest's members line (names, types, modes, owners, times, links, xattrs).
    let members: Manifest.MemberDigest
    /// The first failure; the pipe is cancelled when it is set.
    private(set) var error: Error?

    init(writer: ArchiveWriter, hasher: FileHasher, pipe: BatchPipe, members: Manifest.MemberDigest) {
        self.writer = writer
        self.hasher = hasher
        self.pipe = pipe
        self.members = members
    }

    /// Starts the writing thread.
    func start() throws(SystemError) {
        try pipe.startConsumer { [self] in run() }
    }

    /// Formats on the reading thread instead, as it hands over each batch: for a compressed backup, whose
    /// compressor has a thread of its own (see `BackupEngine.formatsInline`).
    func runInline() {
        pipe.drainInline { [unowned self] batch in _ = consume(batch) }
    }

    private func run() {
        while let batch = pipe.takeFull() {
            guard consume(batch) else { return }
            pipe.recycle(batch)
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
            } else if kind == .digest {
                guard let file = pending else { throw BackupError.output("internal error: a digest without its file") }
                pending = nil
                let digest = Array(UnsafeRawBufferPointer(start: start + record.metadataSize, count: Int(record.dataLength)))
                try file.path.withUnsafeBufferPointer { try hasher.appendLine(path: $0, size: file.size, sha256: digest) }
            } else {
                let path = cursor.assumingMemoryBound(to: CChar.self)
                cursor += Int(record.pathLength) + 1
                entry.clear()
                entry.setPath(path)
                entry.setMetadata(
                    mode: record.mode, uid: record.uid, gid: record.gid, mtime: record.mtimeSeconds,
                    nanoseconds: record.mtimeNanoseconds, size: kind == .file ? Int64(record.size) : 0)
                var link: [UInt8]?
                if kind == .symlink || kind == .hardlink {
                    let target = cursor.assumingMemoryBound(to: CChar.self)
                    link = Array(UnsafeRawBufferPointer(start: cursor, count: Int(record.linkLength)))
                    cursor += Int(record.linkLength) + 1
                    if kind == .symlink { entry.setSymlink(target) } else { entry.setHardlink(target) }
                }
                let attributes = UnsafeRawBufferPointer(start: cursor, count: Int(record.attributeBytes))
                addAttributes(attributes)
                do { try writer.writeHeader(entry) } catch { throw BackupError.archive(error) }
                addToMembers(
                    record, kind, path: UnsafeRawBufferPointer(start: path, count: Int(record.pathLength)), link: link,
                    attributes: attributes)
                if kind == .file {
                    let name = UnsafeRawBufferPointer(start: path, count: Int(record.pathLength))
                    hashingHere = record.flags & BatchRecord.readerHashed == 0
                    if hashingHere {
                        try hasher.begin(path: name, size: record.size)
                    } else {
                        pending = (Array(name), record.size)
                    }
                    try data(UnsafeRawBufferPointer(start: start + record.metadataSize, count: Int(record.dataLength)))
                }
            }
            offset = (offset + record.metadataSize + Int(record.dataLength) + 7) & ~7
        }
    }

    private func data(_ chunk: UnsafeRawBufferPointer) throws {
        guard chunk.count > 0 else { return }
        if hashingHere { try hasher.feed(chunk) }
        do { try writer.writeData(chunk) } catch { throw BackupError.archive(error) }
    }

    /// The member's canonical record, exactly as restore and verify will see it read back.
    private func addToMembers(
        _ record: BatchRecord, _ kind: BatchRecord.Kind, path: UnsafeRawBufferPointer, link: [UInt8]?,
        attributes encoded: UnsafeRawBufferPointer
    ) {
        let letter: Character = kind == .directory ? "d" : kind == .file ? "f" : kind == .symlink ? "l" : "h"
        var xattrs: [(name: String, value: [UInt8])] = []
        var offset = 0
        while offset < encoded.count {
            let nameLength = Int(encoded.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            let valueLength = Int(encoded.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
            let name = UnsafeRawBufferPointer(rebasing: encoded[(offset + 8)..<(offset + 8 + nameLength)])
            let valueStart = offset + 8 + nameLength + 1
            let value = UnsafeRawBufferPointer(rebasing: encoded[valueStart..<(valueStart + valueLength)])
            xattrs.append((String(decoding: name, as: UTF8.self), Array(value)))
            offset += 8 + nameLength + 1 + valueLength
        }
        members.add(
            kind: letter.asciiValue!, path: Array(path), permissions: record.mode & 0o7777, uid: Int64(record.uid),
            gid: Int64(record.gid), size: kind == .file ? record.size : 0, mtimeSeconds: record.mtimeSeconds,
            mtimeNanoseconds: Int32(truncatingIfNeeded: record.mtimeNanoseconds), link: link, xattrs: xattrs)
    }

    private func addAttributes(_ encoded: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < encoded.count {
            let nameLength = Int(encoded.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            let valueLength = Int(encoded.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
            let name = (encoded.baseAddress! + offset + 8).assumingMemoryBound(to: CChar.self)
            let value = UnsafeRawBufferPointer(start: encoded.baseAddress! + offset + 8 + nameLength + 1, count: valueLength)
            entry.addExtendedAttribute(name: name, value: value)
            offset += 8 + nameLength + 1 + valueLength
        }
    }
}
