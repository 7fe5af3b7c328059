// FileCipher: AES-256-CBC with a zero IV and PKCS#7 padding, streamed, as backups encrypt files and Manifest.db.
import CCrypto

/// Encrypts or decrypts one file's bytes as they come (reference §5.4, §5.5). Encrypting, `update` returns the
/// ciphertext of the whole blocks so far and `finish` the last block with PKCS#7 padding (a full block of 16 when the
/// length is a multiple of 16), so the output is 16 × (n / 16 + 1) bytes; decrypting, `finish` checks the padding
/// (OpenSSL refuses a bad one: a damaged file, or the wrong key) and returns the last plaintext bytes. Owns its
/// `EVP_CIPHER_CTX`; the key is copied into it and cleared from OpenSSL's memory when the context is freed.
public final class FileCipher {
    private let context: OpaquePointer
    private let encrypting: Bool
    private var finished = false

    public init(key: [UInt8], encrypting: Bool = true) throws(MobileSyncError) {
        guard key.count == 32, let context = EVP_CIPHER_CTX_new() else { throw .crypto(call: "EVP_CIPHER_CTX_new") }
        self.context = context
        self.encrypting = encrypting
        let iv = [UInt8](repeating: 0, count: 16)
        guard EVP_CipherInit_ex(context, FetchedCipher.cbc, nil, key, iv, encrypting ? 1 : 0) == 1 else {
            EVP_CIPHER_CTX_free(context)
            throw .crypto(call: "EVP_CipherInit_ex")
        }
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
    }

    /// Starts over for the next file with `key` and `iv` (zero, as files use), in the same direction, reusing the
    /// context: no allocation and no lookup a file (a backup has tens of thousands of small ones).
    public func restart(key: [UInt8], iv: [UInt8] = FileCipher.zeroIV) throws(MobileSyncError) {
        guard key.count == 32, iv.count == 16, EVP_CipherInit_ex(context, nil, nil, key, iv, -1) == 1 else {
            throw .crypto(call: "EVP_CipherInit_ex")
        }
        finished = false
    }

    public static let zeroIV = [UInt8](repeating: 0, count: 16)

    /// Transforms `input` into `output` (which needs `input.count + 16` bytes); returns the bytes written.
    public func update(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) throws(MobileSyncError) -> Int {
        guard !finished, output.count >= input.count + 16, input.count <= Int(Int32.max) - 16 else {
            throw .crypto(call: "EVP_CipherUpdate")
        }
        guard input.count > 0 else { return 0 }
        var written: Int32 = 0
        let status = EVP_CipherUpdate(
            context, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &written,
            input.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(input.count))
        guard status == 1 else { throw .crypto(call: "EVP_CipherUpdate") }
        return Int(written)
    }

    /// The last bytes: the padded block (encrypting), or the plaintext after the padding was checked (decrypting);
    /// nil when the padding is wrong or the input was not whole blocks.
    public func finish() -> [UInt8]? {
        var block = [UInt8](repeating: 0, count: 16)
        guard let written = block.withUnsafeMutableBytes({ finish(into: $0) }) else { return nil }
        return Array(block[0..<written])
    }

    /// `finish()` into `output` (which needs 16 bytes): the bytes written, or nil as `finish()` returns nil. A backup
    /// appends the last block to the file's ciphertext so far, for one `write` a small file.
    public func finish(into output: UnsafeMutableRawBufferPointer) -> Int? {
        guard !finished, output.count >= 16 else { return nil }
        finished = true
        var written: Int32 = 0
        guard EVP_CipherFinal_ex(context, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &written) == 1
        else { return nil }
        return Int(written)
    }
    /// The plaintext length of a file encrypted so (zero IV) under `key`, `ciphertextLength` bytes long, told from its
    /// last one or two blocks (`tail`: the last 32 bytes, or all 16 of a one-block file) without decrypting the rest:
    /// CBC decrypts the last block with the one before it as its IV. Nil when the length is not whole blocks or the
    /// padding is wrong (damage, or another key). Uses this (decrypting) cipher's context, restarted: call `restart`
    /// before the file's data. A restore knows each file's size before it streams the data.
    public func plaintextLength(ciphertextLength: UInt64, tail: [UInt8], key: [UInt8]) -> UInt64? {
        guard !encrypting, ciphertextLength >= 16, ciphertextLength % 16 == 0,
            tail.count == (ciphertextLength == 16 ? 16 : 32)
        else { return nil }
        let iv = tail.count == 32 ? Array(tail[0..<16]) : FileCipher.zeroIV
        guard (try? restart(key: key, iv: iv)) != nil else { return nil }
        var output = [UInt8](repeating: 0, count: 48)
        let produced = tail.suffix(16).withUnsafeBytes { last in
            output.withUnsafeMutableBytes { out in try? update(last, into: out) }
        }
        guard let produced, let rest = finish() else { return nil }
        return ciphertextLength - 16 + UInt64(produced + rest.count)
    }
}
