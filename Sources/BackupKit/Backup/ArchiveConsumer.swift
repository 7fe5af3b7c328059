// ArchiveConsumer: the writing thread: unpacks batches into tar members, hashes file data, builds the manifest.
import Foundation
import SystemKit

/// Runs on its own thread while the walker reads: for each record it fills the libarchive entry and
/// writes it, feeds file data to SHA-256 and the archive in the same pass, and appends the manifest
/// line when a file's last byte has gone through. The reading thread meanwhile does only file-system work.
/// Thread safety: used by the writing thread only between `start()` and the pipe's `consumerFinished()`;
/// the owner reads `error`, `notes` and `manifest` only after `waitForConsumer()`.
final class ArchiveConsumer: @unchecked Sendable {
    let writer: ArchiveWriter
    let manifest: ManifestWriter
    private let pipe: BatchPipe
    private let entry = ArchiveEntry()
    private let digest: SHA256Digest
    /// The file whose data is flowing: its path (for the manifest), bytes still expected, total size.
    private var currentPath: [UInt8] = []
    private var remaining: UInt64 = 0
    private var currentSize: UInt64 = 0
    /// The first failure; the pipe is cancelled when it is set.
    private(set) var error: Error?

    init(writer: ArchiveWriter, manifest: ManifestWriter, pipe: BatchPipe) throws {
        self.writer = writer
        self.manifest = manifest
        self.pipe = pipe
        do { digest = try SHA256Digest() } catch let error as DigestError { throw BackupError.digest(error) }
        currentPath.reserveCapacity(4096)
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
                    currentPath.removeAll(keepingCapacity: true)
                    currentPath.append(contentsOf: UnsafeRawBufferPointer(start: path, count: Int(record.pathLength)))
                    currentSize = record.size
                    remaining = record.size
                    try digest.reset()
                    try data(UnsafeRawBufferPointer(start: start + record.metadataSize, count: Int(record.dataLength)))
                }
            }
            offset = (offset + record.metadataSize + Int(record.dataLength) + 7) & ~7
        }
    }

    private func data(_ chunk: UnsafeRawBufferPointer) throws {
        if chunk.count > 0 {
            digest.update(chunk)
            do { try writer.writeData(chunk) } catch { throw BackupError.archive(error) }
            remaining -= UInt64(chunk.count)
        }
        if remaining == 0 {
            do {
                try currentPath.withUnsafeBufferPointer { path in
                    try manifest.appendFile(path: path, size: currentSize, sha256: digest.finalize())
                }
            } catch let error as SystemError {
                throw BackupError.system(error)
            }
        }
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
