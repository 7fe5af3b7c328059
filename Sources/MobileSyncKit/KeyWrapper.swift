// KeyWrapper: RFC 3394 key wrap and unwrap under one key-encryption key, for many keys: one context, restarted.
import CCrypto

/// Wraps and unwraps keys under one key-encryption key (a class key) as `KeyWrap` does, reusing one
/// `EVP_CIPHER_CTX` for all of them: an encrypted backup wraps a fresh key for every file (a restore unwraps one),
/// and a context made and freed per file was a measurable part of their cost. Owns its context; the key-encryption key is copied into it and cleared from
/// OpenSSL's memory when it is freed.
public final class KeyWrapper {
    private let context: OpaquePointer
    private let kek: [UInt8]
    /// The direction the context's key schedule is for (nil: none yet).
    private var direction: Bool?

    public init(kek: [UInt8]) throws(MobileSyncError) {
        guard kek.count == 32, let context = EVP_CIPHER_CTX_new() else { throw .crypto(call: "EVP_CIPHER_CTX_new") }
        self.context = context
        self.kek = kek
        EVP_CIPHER_CTX_set_flags(context, Int32(EVP_CIPHER_CTX_FLAG_WRAP_ALLOW))
        guard EVP_CipherInit_ex(context, FetchedCipher.wrap, nil, nil, nil, 1) == 1 else {
            EVP_CIPHER_CTX_free(context)
            throw .crypto(call: "EVP_CipherInit_ex")
        }
    }

    deinit {
        EVP_CIPHER_CTX_free(context)
    }

    /// `key` (a multiple of 8 bytes, 16 or more) wrapped: 8 bytes longer. Byte for byte `KeyWrap.wrap`'s.
    public func wrap(_ key: [UInt8]) throws(MobileSyncError) -> [UInt8] {
        guard key.count >= 16, key.count % 8 == 0, let wrapped = run(key, encrypting: true, outputCount: key.count + 8)
        else { throw .crypto(call: "EVP_CipherUpdate") }
        return wrapped
    }

    /// The key inside `wrapped`, or nil when the integrity check fails (another key-encryption key, or damage).
    public func unwrap(_ wrapped: [UInt8]) -> [UInt8]? {
        guard wrapped.count >= 24, wrapped.count % 8 == 0 else { return nil }
        return run(wrapped, encrypting: false, outputCount: wrapped.count - 8)
    }

    private func run(_ input: [UInt8], encrypting: Bool, outputCount: Int) -> [UInt8]? {
        // The key schedule is kept between calls in one direction (an init without a key resets the state only);
        // a change of direction needs the key again (decryption has its own schedule).
        let key: [UInt8]? = direction == encrypting ? nil : kek
        guard EVP_CipherInit_ex(context, nil, nil, key, nil, encrypting ? 1 : 0) == 1 else {
            direction = nil
            return nil
        }
        direction = encrypting
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
        guard finished == 1, Int(written + final) == outputCount else { return nil }
        return Array(output[0..<outputCount])
    }
}
