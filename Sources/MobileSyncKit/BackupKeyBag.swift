// BackupKeyBag: Manifest.plist's `BackupKeyBag`, the TLV list of class keys wrapped under the password's key.
import PropertyListKit

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

    // MARK: - Reading

    /// The largest counts a keybag may ask for: each unlock runs them (iphone-backup-decrypt refuses the same as a
    /// time bomb); a device's are 10,000,000 and 10,000.
    public static let maximumIterations: (sha256: UInt32, sha1: UInt32) = (20_000_000, 1_000_000)

    /// Parses a backup's keybag (someone else's bytes): every length checked, the header's items up to the second
    /// `UUID`, then `UUID CLAS WRAP KTYP WPKY` blocks; unknown tags are skipped. Iteration counts over
    /// `maximumIterations`, or none, are refused before any key is derived.
    public static func parse(_ bytes: [UInt8]) throws(PropertyListReadError) -> BackupKeyBag {
        var header: [String: [UInt8]] = [:]
        var classes: [ClassKey] = []
        var current: ClassKey?
        var offset = 0
        func number(_ value: [UInt8]) throws(PropertyListReadError) -> UInt32 {
            guard value.count == 4 else { throw PropertyListReadError("a keybag number that is not 4 bytes") }
            return value.reduce(0) { $0 << 8 | UInt32($1) }
        }
        while offset < bytes.count {
            guard bytes.count - offset >= 8 else { throw PropertyListReadError("the keybag ends inside an item") }
            let tag = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            let length = Int(bytes[offset + 4..<offset + 8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            guard length <= bytes.count - offset - 8 else { throw PropertyListReadError("a keybag item runs past its end") }
            let value = Array(bytes[offset + 8..<offset + 8 + length])
            offset += 8 + length
            if tag == "UUID" && header["UUID"] != nil {
                if let done = current { classes.append(done) }
                current = ClassKey(uuid: value, protectionClass: 0, wrap: 0, wrappedKey: [])
                continue
            }
            if current != nil {
                switch tag {
                case "CLAS": current!.protectionClass = try number(value)
                case "WRAP": current!.wrap = try number(value)
                case "WPKY": current!.wrappedKey = value
                default: break
                }
            } else if header[tag] == nil {
                header[tag] = value
            }
        }
        if let done = current { classes.append(done) }
        guard let uuid = header["UUID"], let salt = header["SALT"], let iterationBytes = header["ITER"] else {
            throw PropertyListReadError("the keybag has no UUID, SALT or ITER")
        }
        let iterations = try number(iterationBytes)
        guard iterations > 0, iterations <= maximumIterations.sha1 else {
            throw PropertyListReadError("the keybag asks for \(iterations) SHA-1 rounds")
        }
        var stage: (UInt32, [UInt8])?
        if let dpic = header["DPIC"], let dpsl = header["DPSL"] {
            let count = try number(dpic)
            guard count > 0, count <= maximumIterations.sha256 else {
                throw PropertyListReadError("the keybag asks for \(count) SHA-256 rounds")
            }
            stage = (count, dpsl)
        }
        return BackupKeyBag(
            version: header["VERS"].flatMap { try? number($0) } ?? 0, uuid: uuid, salt: salt, iterations: iterations,
            passwordStage: stage, classes: classes)
    }

    /// The class keys the password unlocks (every class wrapped with the password's key, WRAP bit 2); nil when a
    /// wrapped key fails its integrity check: the wrong password.
    public func unlock(password: [UInt8]) throws(MobileSyncError) -> [UInt32: [UInt8]]? {
        var kek = try keyEncryptionKey(password: password)
        defer { BackupEncryption.clear(&kek) }
        var keys: [UInt32: [UInt8]] = [:]
        for key in classes where key.wrap & 2 != 0 {
            guard let unwrapped = try KeyWrap.unwrap(key.wrappedKey, with: kek) else { return nil }
            keys[key.protectionClass] = unwrapped
        }
        return keys.isEmpty ? nil : keys
    }
}
