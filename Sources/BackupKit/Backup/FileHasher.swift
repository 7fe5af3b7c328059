// FileHasher: SHA-256 of each archived file, computed as its data streams past, and its manifest line.
import SystemKit

/// Hashes one file at a time while its bytes go by and appends its manifest line after the last byte.
/// Lives on the formatting thread, which also appends the lines of the files the reading thread hashed.
final class FileHasher {
    private let manifest: ManifestWriter
    private let digest: SHA256Digest
    private var path: [UInt8] = []
    private var size: UInt64 = 0
    private var remaining: UInt64 = 0
    /// False when no digest is wanted (`HashPlacement.nowhere`): no byte is hashed and no line appended (the
    /// manifest is its header alone).
    private let hashes: Bool

    init(manifest: ManifestWriter, hashes: Bool = true) throws {
        self.manifest = manifest
        self.hashes = hashes
        do { digest = try SHA256Digest() } catch let error as DigestError { throw BackupError.digest(error) }
        path.reserveCapacity(4096)
    }

    /// Starts a file of `size` bytes archived as `path`; a zero-size file is complete at once.
    func begin(path name: UnsafeRawBufferPointer, size: UInt64) throws {
        path.removeAll(keepingCapacity: true)
        path.append(contentsOf: name)
        self.size = size
        remaining = size
        try digest.reset()
        if size == 0 { try complete() }
    }

    /// Feeds the next bytes of the current file.
    func feed(_ chunk: UnsafeRawBufferPointer) throws {
        guard chunk.count > 0 else { return }
        if hashes { digest.update(chunk) }
        remaining -= UInt64(chunk.count)
        if remaining == 0 { try complete() }
    }

    private func complete() throws {
        guard hashes else { return }
        try path.withUnsafeBufferPointer { path in
            try digest.withFinalDigest { try appendLine(path: path, size: size, sha256: $0) }
        }
    }

    /// Appends a file's manifest line with a digest computed elsewhere (by the reading thread) or here.
    func appendLine(path: UnsafeBufferPointer<UInt8>, size: UInt64, sha256: UnsafeRawBufferPointer) throws {
        do { try manifest.appendFile(path: path, size: size, sha256: sha256) } catch { throw BackupError.system(error) }
    }
}
