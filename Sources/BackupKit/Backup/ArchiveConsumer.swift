// ArchiveConsumer: the writing thread: unpacks batches into tar members, hashes file data, builds the manifest.
import Foundation

/// Runs on its own thread while the walker reads: for each record it fills the libarchive entry and
/// writes it, and (when it holds the `FileHasher`) feeds file data to SHA-256 in the same pass, so the
/// manifest line is appended when a file's last byte has gone through.
/// Thread safety: used by the writing thread only between `start()` and the pipe's `consumerFinished()`;
/// the owner reads `error` only after `waitForConsumer()`.
final class ArchiveConsumer: @unchecked Sendable {
    let writer: ArchiveWriter
    private let pipe: BatchPipe
    private let entry = ArchiveEntry()
    /// Hashes file data here, or nil when the reading thread does it.
    private let hasher: FileHasher?
    /// The first failure; the pipe is cancelled when it is set.
    private(set) var error: Error?

    init(writer: ArchiveWriter, hasher: FileHasher?, pipe: BatchPipe) {
        self.writer = writer
        self.hasher = hasher
        self.pipe = pipe
    }

    /// Starts the writing thread.
    func start() {
        let thread = Thread { [self] in
            run()
        }
        thread.name = "devicectl-archive-writer"
        thread.stackSize = 1 << 20
        thread.start()
    }

    private func run() {
        defer { pipe.consumerFinished() }
        while let batch = pipe.takeFull() {
            do {
                try drain(batch)
            } catch {
                self.error = error
                pipe.cancel()
                return
            }
            pipe.recycle(batch)
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
            } else {
                let path = cursor.assumingMemoryBound(to: CChar.self)
                cursor += Int(record.pathLength) + 1
                entry.clear()
                entry.setPath(path)
                entry.setMetadata(
                    mode: record.mode, uid: record.uid, gid: record.gid, mtime: record.mtimeSeconds,
                    nanoseconds: record.mtimeNanoseconds, size: kind == .file ? Int64(record.size) : 0)
                if kind == .symlink || kind == .hardlink {
                    let target = cursor.assumingMemoryBound(to: CChar.self)
                    cursor += Int(record.linkLength) + 1
                    if kind == .symlink { entry.setSymlink(target) } else { entry.setHardlink(target) }
                }
                addAttributes(UnsafeRawBufferPointer(start: cursor, count: Int(record.attributeBytes)))
                do { try writer.writeHeader(entry) } catch { throw BackupError.archive(error) }
                if kind == .file {
                    try hasher?.begin(path: UnsafeRawBufferPointer(start: path, count: Int(record.pathLength)), size: record.size)
                    try data(UnsafeRawBufferPointer(start: start + record.metadataSize, count: Int(record.dataLength)))
                }
            }
            offset = (offset + record.metadataSize + Int(record.dataLength) + 7) & ~7
        }
    }

    private func data(_ chunk: UnsafeRawBufferPointer) throws {
        guard chunk.count > 0 else { return }
        try hasher?.feed(chunk)
        do { try writer.writeData(chunk) } catch { throw BackupError.archive(error) }
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
