// FileBatchCipher: many small files' AES-256-CBC at once, each under its own key, in place.
import CCrypto
import CMultiBuffer

/// Encrypts a batch of files, each already padded (PKCS#7, `FileBatchCipher.padding`) and under its own key with a
/// zero IV, in place: the ciphertext `FileCipher` makes of the same file. AES-CBC is serial within a file (each
/// block waits for the one before: 0.97 GB/s on this bench host's AES-NI), so one file's chain leaves the
/// processor's AES units mostly idle; Intel's multi-buffer library (libipsec-mb1, loaded when installed) runs
/// several files' chains side by side in one thread: 3.5 GB/s over 28,000 files of the bench's sizes. Without the
/// library (or `accelerated: false`), each file goes through OpenSSL in turn. Files of more than
/// `maximumLength` bytes (padded) are not taken. Owns its contexts; key schedules are cleared after each `run`.
/// One thread at a time.
public final class FileBatchCipher {
    /// The longest padded file the batch takes (the library's limit on one job, in whole blocks).
    public static let maximumLength = Int(CMB_MAX_LENGTH)

    private let encryptor: OpaquePointer?
    /// OpenSSL's context for the files run one by one (no padding: the files come padded).
    private var context: OpaquePointer?
    private var messages: [cmb_message] = []

    /// A cipher that uses the multi-buffer library when `accelerated` and the library loads.
    public init(accelerated: Bool = true) {
        encryptor = accelerated ? cmb_encryptor_new() : nil
    }

    deinit {
        cmb_encryptor_free(encryptor)
        if let context { EVP_CIPHER_CTX_free(context) }
    }

    /// Whether the files run side by side (the library loaded), or one by one through OpenSSL.
    public var isAccelerated: Bool { encryptor != nil }

    /// The PKCS#7 padding of a `length`-byte file: 1 to 16 bytes, each the count (a full block when `length` is a
    /// multiple of 16).
    public static func padding(forLength length: Int) -> Int { 16 - length % 16 }

    /// Adds a file: `data` (padded: a multiple of 16 bytes, at most `maximumLength`), encrypted in place by `run`
    /// under the 32 bytes at `key`. Both must stay valid until `run` returns.
    public func add(_ data: UnsafeMutableRawBufferPointer, key: UnsafeRawPointer) {
        messages.append(
            cmb_message(
                data: data.baseAddress?.assumingMemoryBound(to: UInt8.self), key: key.assumingMemoryBound(to: UInt8.self),
                length: UInt32(truncatingIfNeeded: data.count)))
    }

    /// Encrypts every file added since the last `run`. A file that is not whole blocks or too long fails the batch
    /// (before any is encrypted).
    public func run() throws(MobileSyncError) {
        defer { messages.removeAll(keepingCapacity: true) }
        guard !messages.isEmpty else { return }
        for message in messages {
            guard message.length > 0, message.length % 16 == 0, message.length <= CMB_MAX_LENGTH, message.data != nil
            else { throw .crypto(call: "cmb_encrypt") }
        }
        if let encryptor {
            let status = messages.withUnsafeBufferPointer { cmb_encrypt(encryptor, $0.baseAddress, $0.count) }
            guard status == 0 else { throw .crypto(call: "cmb_encrypt") }
            return
        }
        let context = try openSSLContext()
        for message in messages {
            var written: Int32 = 0
            guard EVP_CipherInit_ex(context, nil, nil, message.key, FileCipher.zeroIV, 1) == 1,
                EVP_CipherUpdate(context, message.data, &written, message.data, Int32(message.length)) == 1,
                written == Int32(message.length)
            else { throw .crypto(call: "EVP_CipherUpdate") }
        }
    }

    private func openSSLContext() throws(MobileSyncError) -> OpaquePointer {
        if let context { return context }
        guard let made = EVP_CIPHER_CTX_new() else { throw .crypto(call: "EVP_CIPHER_CTX_new") }
        guard EVP_CipherInit_ex(made, FetchedCipher.cbc, nil, nil, nil, 1) == 1, EVP_CIPHER_CTX_set_padding(made, 0) == 1
        else {
            EVP_CIPHER_CTX_free(made)
            throw .crypto(call: "EVP_CipherInit_ex")
        }
        context = made
        return made
    }
}
