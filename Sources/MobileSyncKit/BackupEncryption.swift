// BackupEncryption: the keys of one encrypted backup: the keybag, the class keys, Manifest.db's key, file keys.
import CCrypto

/// Makes an encrypted backup's keys (reference §5.6): a keybag whose class keys are wrapped under the key the
/// password derives (PBKDF2-SHA256 with `passwordIterations`, then PBKDF2-SHA1 with `iterations`), a Manifest.db
/// key wrapped with class 4 (`ManifestKey`), and for each file a fresh random key wrapped with its protection
/// class's key (`EncryptionKey`: the class, little-endian, then the 40-byte wrapped key). Keys come from
/// `RAND_bytes`; the plain class keys are cleared when this is released.
public final class BackupEncryption {
    public let keyBag: BackupKeyBag
    private var classKeys: [UInt32: [UInt8]]
    /// A wrapping context a class, made at its first file (the sink's thread is the only user).
    private var wrappers: [UInt32: KeyWrapper] = [:]
    /// Random bytes for file keys, taken 32 at a time (`fileKey`), and each key wrapped for `keyPoolClass`: 40 bytes
    /// a key, in the same order.
    private var keyPool: [UInt8] = []
    private var wrappedPool: [UInt8] = []
    private var keyPoolClass: UInt32?
    private var keyPoolOffset = 0
    /// Manifest.db's key and `ManifestKey`.
    public private(set) var manifestKey: [UInt8]
    public let wrappedManifestKey: [UInt8]

    /// The device's counts: 10,000,000 SHA-256 rounds, then 10,000 SHA-1 rounds.
    public static let deviceIterations: (sha256: UInt32, sha1: UInt32) = (10_000_000, 10_000)
    /// Manifest.db's protection class (always 4: `NSFileProtectionNone`).
    public static let manifestClass: UInt32 = 4

    public init(password: [UInt8], iterations: (sha256: UInt32, sha1: UInt32) = deviceIterations) throws(MobileSyncError) {
        let (bag, keys) = try BackupKeyBag.make(
            password: password, iterations: iterations.sha1, passwordStage: iterations.sha256)
        keyBag = bag
        classKeys = keys
        manifestKey = try SecureRandom.bytes(32)
        wrappedManifestKey = Self.littleEndian(Self.manifestClass)
            + (try KeyWrap.wrap(manifestKey, with: keys[Self.manifestClass]!))
    }

    deinit {
        for key in classKeys.keys { Self.clear(&classKeys[key]!) }
        Self.clear(&manifestKey)
        Self.clear(&keyPool)
    }

    /// Overwrites key material with zeros (`OPENSSL_cleanse`: a store the compiler cannot drop as dead).
    public static func clear(_ bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBytes { buffer in
            if let base = buffer.baseAddress { OPENSSL_cleanse(base, buffer.count) }
        }
    }

    /// A new file key and its `EncryptionKey` value for `protectionClass`. Keys come from a pool of 256 that
    /// `RAND_bytes` fills at once (a call a file cost more than the bytes) and that are wrapped together
    /// (`KeyWrapper.wrap(many:length:)`: one block a call was 2% of an encrypted backup's CPU); each key's bytes are
    /// cleared from the pool as it is taken. A key asked for another class starts a new pool.
    public func fileKey(protectionClass: UInt32) throws(MobileSyncError) -> (key: [UInt8], encryptionKey: [UInt8]) {
        if keyPoolClass != protectionClass || keyPoolOffset + 32 > keyPool.count {
            let wrapper: KeyWrapper
            if let made = wrappers[protectionClass] {
                wrapper = made
            } else {
                guard let classKey = classKeys[protectionClass] else { throw .crypto(call: "class \(protectionClass)") }
                wrapper = try KeyWrapper(kek: classKey)
                wrappers[protectionClass] = wrapper
            }
            Self.clear(&keyPool)
            keyPool = try SecureRandom.bytes(8192)
            keyPoolOffset = 0
            keyPoolClass = nil
            let wrapped = keyPool.withUnsafeBytes { keys in
                Result { () throws(MobileSyncError) in try wrapper.wrap(many: keys, length: 32) }
            }
            wrappedPool = try wrapped.get()
            keyPoolClass = protectionClass
        }
        let index = keyPoolOffset / 32
        let key = Array(keyPool[keyPoolOffset..<(keyPoolOffset + 32)])
        for byte in keyPoolOffset..<(keyPoolOffset + 32) { keyPool[byte] = 0 }
        keyPoolOffset += 32
        return (key, Self.littleEndian(protectionClass) + wrappedPool[(40 * index)..<(40 * index + 40)])
    }

    static func littleEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value >> 16),
         UInt8(truncatingIfNeeded: value >> 24)]
    }
}
