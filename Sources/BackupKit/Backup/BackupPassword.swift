// BackupPassword: what encrypts a MobileSync backup: the password and the key derivation's iteration counts.

/// The password of an encrypted MobileSync backup (`backup --encrypt`) and the PBKDF2 counts its keybag records:
/// a device's (10,000,000 SHA-256 rounds, then 10,000 SHA-1 rounds) unless a test asks for fewer.
public struct BackupPassword: Sendable {
    public var bytes: [UInt8]
    public var sha256Iterations: UInt32
    public var sha1Iterations: UInt32

    public init(
        bytes: [UInt8], sha256Iterations: UInt32 = 10_000_000, sha1Iterations: UInt32 = 10_000
    ) {
        self.bytes = bytes
        self.sha256Iterations = sha256Iterations
        self.sha1Iterations = sha1Iterations
    }
}
