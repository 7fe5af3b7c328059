// SHA256Hash: the SHA-256 of a short input in one call, for identifiers derived from names.
import CCrypto

/// The one-shot SHA-256 the device model derives identifiers with (push tokens, the home screen's UUIDs), through
/// OpenSSL's one-algorithm `SHA256_Init`/`Update`/`Final`, as `SHA256Digest` does: `EVP_Digest` (and OpenSSL 3's
/// `SHA256()`, built on it) first sets up the library's providers and reads its configuration file, which measured
/// 1.4-1.9 ms in a C program that hashes one short string, as `launch` does.
public enum SHA256Hash {
    /// The 32-byte digest of `bytes`.
    public static func of(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { of($0) }
    }

    /// The 32-byte digest of `buffer`.
    public static func of(_ buffer: UnsafeRawBufferPointer) -> [UInt8] {
        var context = SHA256_CTX()
        var digest = [UInt8](repeating: 0, count: 32)
        _ = SHA256_Init(&context)
        _ = SHA256_Update(&context, buffer.baseAddress, buffer.count)
        digest.withUnsafeMutableBufferPointer { output in _ = SHA256_Final(output.baseAddress, &context) }
        return digest
    }
}
