// ManifestHashingThread: a manifest's digest (`ManifestPrefixDigest`) computed on a thread of its own.
import SystemKit

/// Hashes the manifest's bytes before its last line on a worker thread while the caller checks the lines
/// (`ManifestCheck`, in restore and verify: the check runs alone at the end of the read, and hashing was a fifth of
/// it). The blocks are copied into a pool of four 256 KiB chunks handed over in order (`HandOff`); `finish()` waits
/// for the worker. `deinit` stops and joins a worker never finished (a refused manifest).
final class ManifestHashingThread {
    private final class Chunk {
        var bytes: [UInt8] = []
    }

    static let chunkSize = 256 << 10

    private let handOff = HandOff<Chunk, Never>(items: (0..<4).map { _ in Chunk() })
    private var worker: WorkerThread?
    private var filling: Chunk?
    /// The worker's alone until it is joined.
    private let digest: ManifestPrefixDigest

    init() throws {
        let digest = try ManifestPrefixDigest()
        self.digest = digest
        let handOff = handOff
        let shared = SharedDigest(digest)
        worker = try WorkerThread {
            while let chunk = handOff.next() {
                chunk.bytes.withUnsafeBytes { shared.digest.update($0) }
                chunk.bytes.removeAll(keepingCapacity: true)
                handOff.recycle(chunk)
            }
        }
    }

    deinit {
        handOff.cancel()
        worker.take()?.join()
    }

    /// Hands a copy of `block`, the manifest's next bytes, to the worker.
    func feed(_ block: UnsafeRawBufferPointer) {
        var rest = block[...]
        while !rest.isEmpty {
            if filling == nil {
                filling = handOff.takeSpare()
                guard filling != nil else { return }  // stopped: no digest is asked for after that
                filling!.bytes.reserveCapacity(Self.chunkSize)
            }
            let take = min(rest.count, Self.chunkSize - filling!.bytes.count)
            filling!.bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest.prefix(take)))
            rest = rest.dropFirst(take)
            if filling!.bytes.count == Self.chunkSize { handOff.submit(filling.take()!) }
        }
    }

    /// Waits for the worker to hash every byte fed; the digest of the bytes before the last line.
    func finish() -> String {
        if let last = filling.take() { handOff.submit(last) }
        handOff.close()
        worker.take()?.join()
        return digest.finish()
    }

    /// The digest, handed to the worker (which alone uses it until it is joined).
    private final class SharedDigest: @unchecked Sendable {
        let digest: ManifestPrefixDigest
        init(_ digest: ManifestPrefixDigest) { self.digest = digest }
    }
}
