// KeyWrap: RFC 3394 AES key wrap through OpenSSL's own wrap cipher, for one key at a time.
import CCrypto

/// AES-256 key wrap (RFC 3394, the default IV A6A6A6A6A6A6A6A6) through OpenSSL's `AES-256-WRAP`, for the few keys
/// a backup wraps once (class keys, Manifest.db's key); the many file keys go through `KeyWrapper`, which runs the
/// RFC's steps itself on AES-NI and is tested against this one.
public enum KeyWrap {
    /// `key` (a multiple of 8 bytes, 16 or more) wrapped under the 32-byte `kek`: 8 bytes longer.
    public static func wrap(_ key: [UInt8], with kek: [UInt8]) throws(MobileSyncError) -> [UInt8] {
        guard key.count >= 16, key.count % 8 == 0, let wrapped = run(key, kek: kek, encrypting: true) else {
            throw .crypto(call: "EVP_CipherUpdate")
        }
        return wrapped
    }

    /// The key inside `wrapped`, or nil when the integrity check fails (the wrong key-encryption key).
    public static func unwrap(_ wrapped: [UInt8], with kek: [UInt8]) throws(MobileSyncError) -> [UInt8]? {
        guard kek.count == 32 else { throw .crypto(call: "EVP_CipherInit_ex") }
        guard wrapped.count >= 24, wrapped.count % 8 == 0 else { return nil }
        return run(wrapped, kek: kek, encrypting: false)
    }

    private static func run(_ input: [UInt8], kek: [UInt8], encrypting: Bool) -> [UInt8]? {
        guard kek.count == 32, let context = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(context) }
        EVP_CIPHER_CTX_set_flags(context, Int32(EVP_CIPHER_CTX_FLAG_WRAP_ALLOW))
        guard EVP_CipherInit_ex(context, FetchedCipher.wrap, nil, kek, nil, encrypting ? 1 : 0) == 1 else { return nil }
        let outputCount = encrypting ? input.count + 8 : input.count - 8
        var output = [UInt8](repeating: 0, count: outputCount + 16)
        var written: Int32 = 0
        var final: Int32 = 0
        let updated = output.withUnsafeMutableBufferPointer { out in
            EVP_CipherUpdate(context, out.baseAddress, &written, input, Int32(input.count))
        }
        // The wrap cipher does its work in the update: a failure there is a failed integrity check.
        guard updated == 1 else { return nil }
        let finished = output.withUnsafeMutableBufferPointer { out in
            EVP_CipherFinal_ex(context, out.baseAddress! + Int(written), &final)
        }
        defer { BackupEncryption.clear(&output) }
        guard finished == 1, Int(written + final) == outputCount else { return nil }
        return Array(output[0..<outputCount])
    }
}
