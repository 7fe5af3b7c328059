// KeyedArchiveReader: an `MBFile` record back from its NSKeyedArchiver blob, every reference checked.
import PropertyListKit

/// Reads a `Files.file` blob (reference §2.2) into a `BackupFileRecord`. The root is found by following
/// `$top.root` (not by assuming index 1), every UID must name an object of the expected type, the root's class must
/// be `MBFile`, and the numbers must fit their fields: a blob is someone else's bytes. `kind` comes from the row's
/// `flags`; the mode's type bits must agree with it.
public enum KeyedArchiveReader {
    /// A blob's largest size: real records are a few hundred bytes (iphone-backup-decrypt refuses over 100 KiB).
    public static let maximumBlobSize = 128 << 10

    public static func record(
        _ blob: [UInt8], kind: BackupFileRecord.Kind
    ) throws(PropertyListReadError) -> BackupFileRecord {
        guard blob.count <= maximumBlobSize else { throw PropertyListReadError("a record over \(maximumBlobSize) bytes") }
        let archive = try BinaryPropertyListReader.read(blob, limits: .record)
        guard let objects = archive["$objects"]?.array else { throw PropertyListReadError("no $objects array") }
        func resolve(_ value: PropertyListObject?, _ what: String) throws(PropertyListReadError) -> PropertyListObject {
            guard let index = value?.uid, index < UInt64(objects.count) else {
                throw PropertyListReadError("\(what) is not a reference to an object")
            }
            return objects[Int(index)]
        }
        let root = try resolve(archive["$top"]?["root"], "$top.root")
        guard root.pairs != nil else { throw PropertyListReadError("the root object is not a dictionary") }
        guard try resolve(root["$class"], "$class")["$classname"]?.string == "MBFile" else {
            throw PropertyListReadError("the root object is not an MBFile")
        }
        guard let path = try resolve(root["RelativePath"], "RelativePath").string else {
            throw PropertyListReadError("RelativePath is not a string")
        }
        func number(_ key: String, in range: ClosedRange<Int64>) throws(PropertyListReadError) -> Int64 {
            guard let value = root[key]?.integer else { throw PropertyListReadError("\(key) is not an integer") }
            guard range.contains(value) else { throw PropertyListReadError("\(key) \(value) is out of range") }
            return value
        }
        let mode = UInt32(try number("Mode", in: 0...0o177777))
        let expected: UInt32 = switch kind {
        case .file: 0o100000
        case .directory: 0o040000
        case .symlink: 0o120000
        }
        guard mode & 0o170000 == expected else {
            throw PropertyListReadError("Mode \(String(mode, radix: 8)) is not a \(kind)'s")
        }
        var record = BackupFileRecord(
            kind: kind, relativePath: path, mode: mode, userID: UInt32(try number("UserID", in: 0...0xFFFF_FFFF)),
            groupID: UInt32(try number("GroupID", in: 0...0xFFFF_FFFF)),
            inode: UInt64(try optional("InodeNumber", root, in: 0...Int64.max) ?? 0),
            size: UInt64(try number("Size", in: 0...Int64.max)),
            birth: try optional("Birth", root, in: Int64.min...Int64.max) ?? 0,
            lastModified: try number("LastModified", in: Int64.min...Int64.max),
            lastStatusChange: try optional("LastStatusChange", root, in: Int64.min...Int64.max) ?? 0,
            protectionClass: Int(try optional("ProtectionClass", root, in: 0...255) ?? 0))
        if root["Target"] != nil {
            guard let target = try resolve(root["Target"], "Target").string else {
                throw PropertyListReadError("Target is not a string")
            }
            record.target = target
        }
        if root["EncryptionKey"] != nil {
            guard let key = try resolve(root["EncryptionKey"], "EncryptionKey")["NS.data"]?.data else {
                throw PropertyListReadError("EncryptionKey holds no data")
            }
            record.encryptionKey = key
        }
        if root["ExtendedAttributes"] != nil {
            guard let bytes = try resolve(root["ExtendedAttributes"], "ExtendedAttributes").data,
                let pairs = try BinaryPropertyListReader.read(bytes, limits: .record).pairs
            else { throw PropertyListReadError("ExtendedAttributes is not a dictionary") }
            record.extendedAttributes = try pairs.map { (name, value) throws(PropertyListReadError) in
                guard let data = value.data else { throw PropertyListReadError("attribute \(name) is not data") }
                return (name, data)
            }
        }
        return record
    }

    private static func optional(
        _ key: String, _ root: PropertyListObject, in range: ClosedRange<Int64>
    ) throws(PropertyListReadError) -> Int64? {
        guard let value = root[key] else { return nil }
        guard let number = value.integer, range.contains(number) else {
            throw PropertyListReadError("\(key) is not an integer in range")
        }
        return number
    }
}
