// FileCipher: AES-256-CBC with a zero IV and PKCS#7 padding, streamed, as backups encrypt files and Manifest.db.
import CCrypto

/// Encrypts one file's bytes as they come (reference §5.4, §5.5): `update` returns the ciphertext of the whole
/// blocks so far, `finish` the last block with PKCS#7 padding (a full block of 16 when the length is a multiple
/// of 16), so the output is 16 × (n / 16 + 1) bytes. Owns its `EVP_CIPHER_CTX`; the key is copied into it and
/// cleared from OpenSSL's memory when the context is freed.
public final class FileCipher {
    private let context: OpaquePointer
    private var finished = false

    public init(key: [UInt8]) throws(MobileSyncError) {
        guard key.count == 32, let context = EVP_CIPHER_CTX_new() else { throw .crypto(call: "EVP_CIPHER_CTX_new") }
        self.context = context
        let iv = [UInt8](repeating: 0, count: 16)
        guard EVP_EncryptInit_ex(context, EVP_aes_256_cbc(), nil, key, iv) == 1 else {
            EVP_CIPHER_CTX_free(context)
            throw .crypto(call: "EVP_EncryptInit_ex")
        }
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
    }

    /// Encrypts `input` into `output` (which needs `input.count + 16` bytes); returns the bytes written.
    public func update(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(MobileSyncError) -> Int {
        guard !finished, output.count >= input.count + 16, input.count <= Int(Int32.max) - 16 else {
            throw .crypto(call: "EVP_EncryptUpdate")
        }
        var written: Int32 = 0
        guard input.count > 0 else { return 0 }
        let status = EVP_EncryptUpdate(
            context, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &written,
            input.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(input.count))
        guard status == 1 else { throw .crypto(call: "EVP_EncryptUpdate") }
        return Int(written)
    }

    /// The padded last block (16 bytes).
    public func finish() throws(MobileSyncError) -> [UInt8] {
        guard !finished else { throw .crypto(call: "EVP_EncryptFinal_ex") }
        finished = true
        var block = [UInt8](repeating: 0, count: 32)
        var written: Int32 = 0
        guard EVP_EncryptFinal_ex(context, &block, &written) == 1 else { throw .crypto(call: "EVP_EncryptFinal_ex") }
        return Array(block[0..<Int(written)])
    }

    /// The ciphertext's length for `size` bytes of plaintext.
    public static func encryptedSize(_ size: UInt64) -> UInt64 { (size / 16 + 1) * 16 }
}
