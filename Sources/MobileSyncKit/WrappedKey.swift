// WrappedKey: an `EncryptionKey` or `ManifestKey` value: a protection class and an RFC 3394 wrapped key.

/// A file's `EncryptionKey` (or Manifest.plist's `ManifestKey`) as a backup stores it (reference §5.5): 4 bytes of
/// protection class, little-endian, then the 40-byte key wrapped with that class's key.
public struct WrappedKey: Sendable {
    public let protectionClass: UInt32
    public let wrapped: [UInt8]

    /// The value's parts; nil unless it is 44 bytes.
    public init?(_ value: [UInt8]) {
        guard value.count == 44 else { return nil }
        protectionClass = value[0..<4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        wrapped = Array(value[4...])
    }
}
