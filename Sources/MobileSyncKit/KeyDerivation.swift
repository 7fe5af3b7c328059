// KeyDerivation: PBKDF2 as backups derive the key that unwraps their class keys.
import CCrypto

/// PBKDF2-HMAC (`PKCS5_PBKDF2_HMAC`) with SHA-1 or SHA-256, 32-byte output (reference §5.3).
public enum KeyDerivation {
    public enum Digest: Sendable {
        case sha1, sha256
    }

    public static func pbkdf2(
        _ secret: [UInt8], salt: [UInt8], iterations: Int, digest: Digest
    ) throws(MobileSyncError) -> [UInt8] {
        var key = [UInt8](repeating: 0, count: 32)
        let algorithm = digest == .sha1 ? EVP_sha1() : EVP_sha256()
        let status = secret.withUnsafeBufferPointer { secret in
            salt.withUnsafeBufferPointer { salt in
                key.withUnsafeMutableBufferPointer { key in
                    secret.withMemoryRebound(to: CChar.self) { secret in
                        PKCS5_PBKDF2_HMAC(
                            secret.baseAddress, Int32(secret.count), salt.baseAddress, Int32(salt.count),
                            Int32(iterations), algorithm, 32, key.baseAddress)
                    }
                }
            }
        }
        guard status == 1 else { throw .crypto(call: "PKCS5_PBKDF2_HMAC") }
        return key
    }
}
