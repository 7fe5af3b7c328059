// BackupKeyBag: Manifest.plist's `BackupKeyBag`, the TLV list of class keys wrapped under the password's key.

/// A backup keybag (reference §5.2): a header (`VERS TYPE UUID HMCK WRAP SALT ITER`, then `DPWT DPIC DPSL` for
/// the iOS 10.2+ two-stage derivation) and one block per protection class, exactly `UUID CLAS WRAP KTYP WPKY`
/// (pyiosbackup reads five items a class). Each tag is 4 ASCII bytes and a big-endian 4-byte length; 4-byte
/// values are big-endian integers. Unencrypted backups carry one too (the empty password, one stage).
public struct BackupKeyBag: Sendable {
    /// One protection class's key, wrapped.
    public struct ClassKey: Sendable {
        public var uuid: [UInt8]
        public var protectionClass: UInt32
        /// 2: wrapped with the password's key; 3: also with the device's UID key (readers skip those without bit 2).
        public var wrap: UInt32
        public var wrappedKey: [UInt8]
    }

    public var version: UInt32 = 5
    public var uuid: [UInt8]
    public var salt: [UInt8]
    public var iterations: UInt32
    /// The SHA-256 stage (iOS 10.2+ encrypted backups): its iterations and salt; nil for one stage.
    public var passwordStage: (iterations: UInt32, salt: [UInt8])?
    public var classes: [ClassKey]

    /// The protection classes a device's backup keybag lists (1-11), and which are wrapped with the password's
    /// key alone (1-4: the file classes) as in the reference's device sample.
    static let classNumbers: ClosedRange<UInt32> = 1...11

    /// A new keybag with fresh salts, UUIDs and class keys, wrapped under the key `password` derives. Returns the
    /// keybag and the plain class keys (by class), which encrypt the backup's files.
    public static func make(
        password: [UInt8], iterations: UInt32, passwordStage iterationsSHA256: UInt32?
    ) throws(MobileSyncError) -> (BackupKeyBag, [UInt32: [UInt8]]) {
        let salt = try SecureRandom.bytes(20)
        let stage = try iterationsSHA256.map { count throws(MobileSyncError) in (count, try SecureRandom.bytes(20)) }
        var bag = BackupKeyBag(
            uuid: try SecureRandom.bytes(16), salt: salt, iterations: iterations, passwordStage: stage, classes: [])
        let kek = try bag.keyEncryptionKey(password: password)
        var keys: [UInt32: [UInt8]] = [:]
        for number in classNumbers {
            let key = try SecureRandom.bytes(32)
            keys[number] = key
            bag.classes.append(ClassKey(
                uuid: try SecureRandom.bytes(16), protectionClass: number, wrap: number <= 4 ? 2 : 3,
                wrappedKey: try KeyWrap.wrap(key, with: kek)))
        }
        return (bag, keys)
    }

    /// The key that unwraps the class keys: PBKDF2-SHA256 with the password stage when there is one, then
    /// PBKDF2-SHA1 (reference §5.3).
    public func keyEncryptionKey(password: [UInt8]) throws(MobileSyncError) -> [UInt8] {
        var secret = password
        if let stage = passwordStage {
            secret = try KeyDerivation.pbkdf2(password, salt: stage.salt, iterations: Int(stage.iterations), digest: .sha256)
        }
        return try KeyDerivation.pbkdf2(secret, salt: salt, iterations: Int(iterations), digest: .sha1)
    }

    /// The TLV bytes.
    public func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        func item(_ tag: String, _ value: [UInt8]) {
            bytes += tag.utf8
            bytes += bigEndian(UInt32(value.count))
            bytes += value
        }
        func item(_ tag: String, _ value: UInt32) { item(tag, bigEndian(value)) }
        item("VERS", version)
        item("TYPE", 1)
        item("UUID", uuid)
        item("HMCK", [UInt8](repeating: 0, count: 40))
        item("WRAP", 0)
        item("SALT", salt)
        item("ITER", iterations)
        if let stage = passwordStage {
            item("DPWT", 1)
            item("DPIC", stage.iterations)
            item("DPSL", stage.salt)
        }
        for key in classes {
            item("UUID", key.uuid)
            item("CLAS", key.protectionClass)
            item("WRAP", key.wrap)
            item("KTYP", 0)
            item("WPKY", key.wrappedKey)
        }
        return bytes
    }

    private func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 8),
         UInt8(truncatingIfNeeded: value)]
    }
}
