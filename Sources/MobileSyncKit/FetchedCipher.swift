// FetchedCipher: OpenSSL 3's AES implementations, fetched from the provider once for the process.
import CCrypto

/// The ciphers a backup uses, fetched once (`EVP_CIPHER_fetch`). Passing `EVP_aes_256_cbc()` to
/// `EVP_CipherInit_ex` makes OpenSSL 3 look the implementation up by name again on every call (a provider fetch
/// with its locks and string compares), which cost more than the AES of a small file: 26% of an encrypted
/// backup's CPU went to libcrypto. A fetched cipher is immutable and reference-counted, safe to share between
/// threads; nil only if the provider has none (then the `EVP_aes_*` object is used, as before).
enum FetchedCipher {
    /// AES-256-CBC (files and Manifest.db).
    nonisolated(unsafe) static let aes256CBC: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-256-CBC", nil)
    /// AES-256 key wrap, RFC 3394 (`KeyWrap`: class keys and Manifest.db's key).
    nonisolated(unsafe) static let aes256Wrap: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-256-WRAP", nil)
    /// AES-256 one block at a time (`KeyWrapper`'s RFC 3394 steps: file keys).
    nonisolated(unsafe) static let aes256ECB: OpaquePointer? = EVP_CIPHER_fetch(nil, "AES-256-ECB", nil)

    static var cbc: OpaquePointer? { aes256CBC ?? EVP_aes_256_cbc() }
    static var wrap: OpaquePointer? { aes256Wrap ?? EVP_aes_256_wrap() }
    static var ecb: OpaquePointer? { aes256ECB ?? EVP_aes_256_ecb() }
}
