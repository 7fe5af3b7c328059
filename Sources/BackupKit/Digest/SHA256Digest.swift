// SHA256Digest: incremental SHA-256 over OpenSSL's libcrypto (uses the CPU's SHA instructions).
import CCrypto
import DeviceKit
import SystemKit

/// An incremental SHA-256 computation owning one OpenSSL `SHA256_CTX`.
/// (`SHA256_Init`/`Update`/`Final` run the same code as `EVP_sha256`, but do not load OpenSSL 3's provider
/// machinery, which costs about 2 MiB of peak RSS per process.)
///
/// ```swift
/// let digest = try SHA256Digest()
/// buffer.withUnsafeBytes { digest.update($0) }
/// let hex = digest.hex            // finalizes
/// ```
/// After `finalize()` (or `hex`), call `reset()` to hash another message with the same context.
public final class SHA256Digest {
    /// The digest length in bytes.
    public static let length = 32

    private let context: UnsafeMutablePointer<SHA256_CTX>
    /// The digest once finalized (32 bytes, no allocation: files are hashed one after another in hot loops).
    private var result: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private var finished = false

    /// Creates a context ready for `update`. Throws `DigestError` if OpenSSL cannot initialise it.
    public init() throws {
        context = .allocate(capacity: 1)
        guard SHA256_Init(context) == 1 else {
            context.deallocate()
            throw DigestError("SHA256_Init")
        }
    }

    deinit {
        context.deallocate()
    }

    /// Takes `other`'s state: the same bytes fed (or the same digest, when `other` is finalized).
    public func copy(from other: SHA256Digest) {
        context.pointee = other.context.pointee
        result = other.result
        finished = other.finished
    }

    /// Starts a new message, discarding any state.
    public func reset() throws {
        finished = false
        guard SHA256_Init(context) == 1 else { throw DigestError("SHA256_Init") }
    }

    /// Feeds `buffer` into the digest. Must not be called after `finalize()` without `reset()`.
    public func update(_ buffer: UnsafeRawBufferPointer) {
        precondition(!finished, "SHA256Digest.update after finalize; call reset() first")
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        // SHA256_Update cannot fail on an initialised context.
        _ = SHA256_Update(context, base, buffer.count)
    }

    /// Feeds `bytes` into the digest.
    public func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// The 32-byte digest of everything fed so far. Idempotent: later calls return the same bytes.
    public func finalize() -> [UInt8] {
        withFinalDigest { Array($0) }
    }

    /// Writes the 32-byte digest to `out` (room for 32 bytes), as `finalize()` does, without an array.
    public func finalize(into out: UnsafeMutableRawPointer) {
        withFinalDigest { out.copyMemory(from: $0.baseAddress!, byteCount: SHA256Digest.length) }
    }

    /// Calls `body` with the 32-byte digest (finalizing on the first call; valid only during the call).
    public func withFinalDigest<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        if !finished {
            _ = withUnsafeMutableBytes(of: &result) {
                SHA256_Final($0.baseAddress!.assumingMemoryBound(to: UInt8.self), context)
            }
            finished = true
        }
        return try withUnsafeBytes(of: &result) { try body($0) }
    }

    /// The digest as 64 lowercase hex digits (finalizes).
    public var hex: String { Hex.encode(finalize()) }

    /// The SHA-256 of `bytes`, as 64 lowercase hex digits.
    public static func hex(of bytes: [UInt8]) throws -> String {
        try bytes.withUnsafeBytes { try hex(of: $0) }
    }

    /// The SHA-256 of `buffer`, as 64 lowercase hex digits (DeviceKit's one-shot `SHA256Hash`).
    public static func hex(of buffer: UnsafeRawBufferPointer) throws -> String {
        Hex.encode(SHA256Hash.of(buffer))
    }
}
