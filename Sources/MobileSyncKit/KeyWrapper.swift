// KeyWrapper: RFC 3394 key wrap and unwrap under one key-encryption key, for many keys, on AES-NI.
import CCrypto

/// Wraps and unwraps keys under one key-encryption key (a class key), byte for byte as `KeyWrap` (OpenSSL's
/// `AES-256-WRAP`) does: an encrypted backup wraps a fresh key for every file and a restore unwraps one. RFC 3394's
/// steps (§2.2.1, §2.2.2) run here over AES-256-ECB (wrapping, each step over the blocks of all the keys given at
/// once; unwrapping, one block a step), because OpenSSL 3's wrap cipher encrypts its blocks with the table-based
/// `AES_encrypt`, not AES-NI: that was 6% of an encrypted backup's CPU (3 µs a file key), this is a tenth of it. Two contexts, each keyed once (encryption and decryption have their own key
/// schedules); the key-encryption key is cleared from OpenSSL's memory when they are freed. One thread at a time.
public final class KeyWrapper {
    private let encryptor: OpaquePointer
    private let decryptor: OpaquePointer
    /// RFC 3394's default initial value.
    private static let initialValue: UInt64 = 0xA6A6_A6A6_A6A6_A6A6

    public init(kek: [UInt8]) throws(MobileSyncError) {
        guard kek.count == 32 else { throw .crypto(call: "EVP_CipherInit_ex") }
        encryptor = try Self.context(kek: kek, encrypting: true)
        do {
            decryptor = try Self.context(kek: kek, encrypting: false)
        } catch {
            EVP_CIPHER_CTX_free(encryptor)
            throw error
        }
    }

    deinit {
        EVP_CIPHER_CTX_free(encryptor)
        EVP_CIPHER_CTX_free(decryptor)
    }

    private static func context(kek: [UInt8], encrypting: Bool) throws(MobileSyncError) -> OpaquePointer {
        guard let context = EVP_CIPHER_CTX_new() else { throw .crypto(call: "EVP_CIPHER_CTX_new") }
        guard EVP_CipherInit_ex(context, FetchedCipher.ecb, nil, kek, nil, encrypting ? 1 : 0) == 1,
            EVP_CIPHER_CTX_set_padding(context, 0) == 1
        else {
            EVP_CIPHER_CTX_free(context)
            throw .crypto(call: "EVP_CipherInit_ex")
        }
        return context
    }

    /// `key` (a multiple of 8 bytes, 16 or more) wrapped: 8 bytes longer. Byte for byte `KeyWrap.wrap`'s.
    public func wrap(_ key: [UInt8]) throws(MobileSyncError) -> [UInt8] {
        guard !key.isEmpty else { throw .crypto(call: "EVP_CipherUpdate") }
        let wrapped = key.withUnsafeBytes { bytes in
            Result { () throws(MobileSyncError) in try wrap(many: bytes, length: key.count) }
        }
        return try wrapped.get()
    }

    /// Keys of `length` bytes each (a multiple of 8, 16 or more), back to back in `keys`, wrapped together: for each,
    /// byte for byte what `wrap` gives it, one after another (`length + 8` bytes a key). Each of RFC 3394's steps
    /// encrypts that step's block of every key in one call, so AES-NI runs them side by side instead of waiting on
    /// each block's rounds: an encrypted backup wraps its file keys a pool at a time (`BackupEncryption`).
    public func wrap(many keys: UnsafeRawBufferPointer, length: Int) throws(MobileSyncError) -> [UInt8] {
        guard length >= 16, length % 8 == 0, length <= 4096, keys.count % length == 0, keys.count / length <= 4096
        else { throw .crypto(call: "EVP_CipherUpdate") }
        let count = keys.count / length, n = length / 8, stride = length + 8
        guard count > 0 else { return [] }
        var output = [UInt8](repeating: 0, count: count * stride)
        var blocks = [UInt8](repeating: 0, count: count * 16)
        defer { BackupEncryption.clear(&blocks) }
        let done = output.withUnsafeMutableBytes { out -> Bool in
            blocks.withUnsafeMutableBytes { blocks -> Bool in
                // out[stride * k..<stride * k + 8] is key k's A, then its R[1...n].
                for k in 0..<count {
                    out.storeBytes(of: Self.initialValue.bigEndian, toByteOffset: stride * k, as: UInt64.self)
                    (out.baseAddress! + stride * k + 8).copyMemory(from: keys.baseAddress! + length * k, byteCount: length)
                }
                let pointer = blocks.baseAddress!.assumingMemoryBound(to: UInt8.self)
                for j in 0..<6 {
                    for i in 1...n {
                        for k in 0..<count {
                            blocks.storeBytes(
                                of: out.loadUnaligned(fromByteOffset: stride * k, as: UInt64.self), toByteOffset: 16 * k,
                                as: UInt64.self)
                            blocks.storeBytes(
                                of: out.loadUnaligned(fromByteOffset: stride * k + 8 * i, as: UInt64.self),
                                toByteOffset: 16 * k + 8, as: UInt64.self)
                        }
                        var written: Int32 = 0
                        guard EVP_CipherUpdate(encryptor, pointer, &written, pointer, Int32(blocks.count)) == 1,
                            written == Int32(blocks.count)
                        else { return false }
                        let t = UInt64(n * j + i).bigEndian
                        for k in 0..<count {
                            out.storeBytes(
                                of: blocks.loadUnaligned(fromByteOffset: 16 * k, as: UInt64.self) ^ t,
                                toByteOffset: stride * k, as: UInt64.self)
                            out.storeBytes(
                                of: blocks.loadUnaligned(fromByteOffset: 16 * k + 8, as: UInt64.self),
                                toByteOffset: stride * k + 8 * i, as: UInt64.self)
                        }
                    }
                }
                return true
            }
        }
        guard done else { throw .crypto(call: "EVP_CipherUpdate") }
        return output
    }

    /// The key inside `wrapped`, or nil when the integrity check fails (another key-encryption key, or damage).
    public func unwrap(_ wrapped: [UInt8]) -> [UInt8]? {
        guard wrapped.count >= 24, wrapped.count % 8 == 0, wrapped.count <= 4104 else { return nil }
        let n = wrapped.count / 8 - 1
        var a: UInt64 = 0
        var output = [UInt8](repeating: 0, count: wrapped.count - 8)
        let done = output.withUnsafeMutableBytes { out -> Bool in
            wrapped.withUnsafeBytes { input in
                a = input.load(as: UInt64.self)
                out.baseAddress!.copyMemory(from: input.baseAddress!.advanced(by: 8), byteCount: out.count)
            }
            var block = (UInt64(0), UInt64(0))
            defer { withUnsafeMutableBytes(of: &block) { OPENSSL_cleanse($0.baseAddress, $0.count) } }
            for j in stride(from: 5, through: 0, by: -1) {
                for i in stride(from: n, through: 1, by: -1) {
                    let r = out.baseAddress!.advanced(by: 8 * (i - 1))
                    let t = UInt64(n * j + i)
                    block.0 = a ^ t.bigEndian
                    block.1 = r.loadUnaligned(as: UInt64.self)
                    guard Self.step(decryptor, &block) else { return false }
                    a = block.0
                    r.storeBytes(of: block.1, as: UInt64.self)
                }
            }
            return true
        }
        // The check of A compares all of it (no early exit on the first differing byte).
        guard done, a ^ Self.initialValue.bigEndian == 0 else {
            BackupEncryption.clear(&output)
            return nil
        }
        return output
    }

    /// One AES block through `context`, in place.
    private static func step(_ context: OpaquePointer, _ block: inout (UInt64, UInt64)) -> Bool {
        withUnsafeMutableBytes(of: &block) { bytes in
            let pointer = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var written: Int32 = 0
            return EVP_CipherUpdate(context, pointer, &written, pointer, 16) == 1 && written == 16
        }
    }
}
