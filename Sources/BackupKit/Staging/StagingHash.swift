// StagingHash: the SHA-256 of the file a staging thread is writing, when that thread is the one to hash it.

/// One staging thread's digest of the file it writes (`StagingPipeline`): active for a file whose data the applying
/// thread hashes, inactive for one the reader hashed as it read it (a large file) or when nothing is hashed.
final class StagingHash {
    private let digest: SHA256Digest
    /// Whether the file being written is hashed here.
    private(set) var active = false

    init() throws {
        digest = try SHA256Digest()
    }

    /// Starts the next file, hashed here or not.
    func start(active: Bool) throws {
        self.active = active
        if active { try digest.reset() }
    }

    /// Feeds the file's next bytes (nothing when inactive).
    func update(_ bytes: UnsafeRawBufferPointer) {
        if active { digest.update(bytes) }
    }

    /// Feeds `count` zeros (a sparse hole).
    func updateZeros(_ count: Int) {
        guard active else { return }
        ZeroBytes.forEachChunk(UInt64(count)) { digest.update($0) }
    }

    /// Calls `body` with the file's 32-byte digest (finalizing it), when it is hashed here.
    func withFinalDigest(_ body: (UnsafeRawBufferPointer) -> Void) {
        if active { digest.withFinalDigest(body) }
    }

    /// A copy of this state, for the thread that goes on with the file.
    func copy() throws -> StagingHash {
        let copy = try StagingHash()
        copy.take(self)
        return copy
    }

    /// Takes `other`'s state: the file it was hashing goes on here.
    func take(_ other: StagingHash) {
        active = other.active
        digest.copy(from: other.digest)
    }
}
