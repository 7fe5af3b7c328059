// FileDecipher: AES-256-CBC decryption with a zero IV and strict PKCS#7, streamed.
import CCrypto

/// Decrypts one encrypted file or Manifest.db as it is read; `finish` checks the PKCS#7 padding (OpenSSL refuses a
/// bad one: a damaged file, or the wrong key) and returns the last plaintext bytes.
public final class FileDecipher {
    private let context: OpaquePointer
    private var finished = false

    public init(key: [UInt8]) throws(MobileSyncError) {
        guard key.count == 32, let context = EVP_CIPHER_CTX_new() else { throw .crypto(call: "EVP_CIPHER_CTX_new") }
        self.context = context
        let iv = [UInt8](repeating: 0, count: 16)
        guard EVP_DecryptInit_ex(context, EVP_aes_256_cbc(), nil, key, iv) == 1 else {
            EVP_CIPHER_CTX_free(context)
            throw .crypto(call: "EVP_DecryptInit_ex")
        }
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
    }

    /// Decrypts `input` into `output` (which needs `input.count + 16` bytes); returns the bytes written.
    public func update(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(MobileSyncError) -> Int {
        guard !finished, output.count >= input.count + 16, input.count <= Int(Int32.max) - 16 else {
            throw .crypto(call: "EVP_DecryptUpdate")
        }
        guard input.count > 0 else { return 0 }
        var written: Int32 = 0
        let status = EVP_DecryptUpdate(
            context, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &written,
            input.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(input.count))
        guard status == 1 else { throw .crypto(call: "EVP_DecryptUpdate") }
        return Int(written)
    }

    /// The last plaintext bytes; nil when the padding is wrong (or the input was not whole blocks).
    public func finish() -> [UInt8]? {
        guard !finished else { return nil }
        finished = true
        var block = [UInt8](repeating: 0, count: 32)
        var written: Int32 = 0
        guard EVP_DecryptFinal_ex(context, &block, &written) == 1 else { return nil }
        return Array(block[0..<Int(written)])
    }
}
