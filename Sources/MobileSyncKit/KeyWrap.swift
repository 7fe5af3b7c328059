// KeyWrap: RFC 3394 AES key wrap, as backups wrap class keys and file keys (one key at a time).

/// AES-256 key wrap (RFC 3394, the default IV A6A6A6A6A6A6A6A6) through `EVP_aes_256_wrap`, for one key; many keys
/// under one key-encryption key go through one `KeyWrapper`.
public enum KeyWrap {
    /// `key` (a multiple of 8 bytes) wrapped under the 32-byte `kek`: 8 bytes longer.
    public static func wrap(_ key: [UInt8], with kek: [UInt8]) throws(MobileSyncError) -> [UInt8] {
        try KeyWrapper(kek: kek).wrap(key)
    }

    /// The key inside `wrapped`, or nil when the integrity check fails (the wrong key-encryption key).
    public static func unwrap(_ wrapped: [UInt8], with kek: [UInt8]) throws(MobileSyncError) -> [UInt8]? {
        try KeyWrapper(kek: kek).unwrap(wrapped)
    }
}
