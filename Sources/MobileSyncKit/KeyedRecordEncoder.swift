// KeyedRecordEncoder: an MBFile record's keyed archive written straight to bytes, for one row a file.
import PropertyListKit

/// Writes what `BinaryPropertyListWriter.encode` writes for a record's keyed-archive tree (byte for byte: the
/// tests compare them), without building the tree: a backup makes one record a file, and building and
/// flattening some forty values each was most of a MobileSync backup's time. Objects are numbered in the
/// writer's order (a container, then its keys, then its values, depth first); every record has fewer than 256,
/// so references take one byte. One encoder reuses its buffers from record to record (`withArchive`): a row
/// costs no allocation but the attributes' plist.
public struct KeyedRecordEncoder {
    private var bytes: [UInt8] = []
    private var offsets: [Int] = []

    public init() {
        bytes.reserveCapacity(1024)
        offsets.reserveCapacity(64)
    }

    /// The archive of `record` (see `BackupFileRecord.archived()` for the layout).
    static func encode(_ record: BackupFileRecord) -> [UInt8] {
        var encoder = KeyedRecordEncoder()
        return encoder.withArchive(of: record) { Array($0) }
    }

    /// Calls `body` with the archive of `record`, in this encoder's buffer (valid during the call).
    public mutating func withArchive<Value, Failure: Error>(
        of record: BackupFileRecord, _ body: (UnsafeRawBufferPointer) throws(Failure) -> Value
    ) throws(Failure) -> Value {
        bytes.removeAll(keepingCapacity: true)
        offsets.removeAll(keepingCapacity: true)
        archive(record)
        // Array.withUnsafeBytes rethrows untyped: the typed error goes through a Result.
        let outcome = bytes.withUnsafeBytes { buffer -> Result<Value, Failure> in
            do throws(Failure) { return .success(try body(buffer)) } catch { return .failure(error) }
        }
        return try outcome.get()
    }

    /// The root's keys, in order; the optional ones (`Target`, `EncryptionKey`, `ExtendedAttributes`) and `$class`
    /// follow.
    private static let fixedRootKeys: [StaticString] = [
        "LastModified", "Flags", "GroupID", "LastStatusChange", "Birth", "ProtectionClass", "InodeNumber", "Mode",
        "Size", "UserID", "RelativePath",
    ]

    private mutating func archive(_ record: BackupFileRecord) {
        bytes += "bplist00".utf8
        // $objects' elements after "$null" and the root: the path, then the optional ones, then the MBFile class.
        let hasTarget = record.target != nil, hasKey = record.encryptionKey != nil
        let attributes = record.extendedAttributes.isEmpty
            ? nil : BinaryPropertyListWriter.encode(.dictionary(record.extendedAttributes.map { ($0.0, .data($0.1)) }))
        let rootCount = Self.fixedRootKeys.count + (hasTarget ? 1 : 0) + (hasKey ? 1 : 0) + (attributes != nil ? 1 : 0) + 1
        // $objects indices (NSKeyedArchiver's UIDs), as `BackupFileRecord.archived()` documents them: 0 $null,
        // 1 the root, 2 the path, then the target, the key and its class, the attributes, the MBFile class.
        let targetIndex: UInt64 = 3
        let keyIndex = targetIndex + (hasTarget ? 1 : 0)
        let attributesIndex = keyIndex + (hasKey ? 2 : 0)
        let classIndex = attributesIndex + (attributes != nil ? 1 : 0)

        // 0: the top dictionary; 1-4 its keys; 5, 6 its first values; 7-9 $top; 10 $objects and its elements.
        let objectsIndex = 10
        dictionary(count: 4) { $0.append(1); $0.append(2); $0.append(3); $0.append(4) } values: {
            $0.append(5); $0.append(6); $0.append(7); $0.append(UInt8(objectsIndex))
        }
        string("$version")
        string("$archiver")
        string("$top")
        string("$objects")
        integer(100_000)
        string("NSKeyedArchiver")
        dictionary(count: 1) { $0.append(8) } values: { $0.append(9) }
        string("root")
        uid(1)
        // $objects' elements by their sizes (objects in each subtree), which fix every reference before it is
        // written: $null, the root (itself, its keys and values), the path, [target], [key: its dictionary of 5,
        // its class of 8], [attributes], the MBFile class (7).
        let rootIndex = objectsIndex + 2
        let rootSize = 1 + 2 * rootCount
        begin()
        marker(0xA0, count: 4 + (hasTarget ? 1 : 0) + (hasKey ? 2 : 0) + (attributes != nil ? 1 : 0))
        var next = objectsIndex + 1
        bytes.append(UInt8(next))  // $null
        bytes.append(UInt8(next + 1))  // the root
        bytes.append(UInt8(next + 1 + rootSize))  // the path
        next += 1 + rootSize + 1
        if hasTarget {
            bytes.append(UInt8(next))
            next += 1
        }
        if hasKey {
            bytes.append(UInt8(next))
            bytes.append(UInt8(next + 5))
            next += 5 + 8
        }
        if attributes != nil {
            bytes.append(UInt8(next))
            next += 1
        }
        bytes.append(UInt8(next))
        string("$null")
        // The root: its keys, then its values (all scalars).
        dictionary(count: rootCount) { keys in
            for index in rootIndex + 1...rootIndex + rootCount { keys.append(UInt8(index)) }
        } values: { values in
            for index in rootIndex + rootCount + 1...rootIndex + 2 * rootCount { values.append(UInt8(index)) }
        }
        for key in Self.fixedRootKeys { string(key) }
        if hasTarget { string("Target") }
        if hasKey { string("EncryptionKey") }
        if attributes != nil { string("ExtendedAttributes") }
        string("$class")
        integer(record.lastModified)
        integer(0)
        integer(Int64(record.groupID))
        integer(record.lastStatusChange)
        integer(record.birth)
        integer(Int64(record.protectionClass))
        integer(Int64(bitPattern: record.inode))
        integer(Int64(record.mode))
        integer(Int64(bitPattern: record.size))
        integer(Int64(record.userID))
        uid(2)
        if hasTarget { uid(targetIndex) }
        if hasKey { uid(keyIndex) }
        if attributes != nil { uid(attributesIndex) }
        uid(classIndex)
        string(record.relativePath)
        if let target = record.target { string(target) }
        if let key = record.encryptionKey {
            let at = offsets.count
            dictionary(count: 2) { $0.append(UInt8(at + 1)); $0.append(UInt8(at + 2)) } values: {
                $0.append(UInt8(at + 3)); $0.append(UInt8(at + 4))
            }
            string("NS.data")
            string("$class")
            data(key)
            uid(keyIndex + 1)
            classDictionary("NSMutableData", Self.mutableDataClasses)
        }
        if let attributes { data(attributes) }
        classDictionary("MBFile", Self.fileClasses)
        finish()
    }

    private static let mutableDataClasses: [StaticString] = ["NSMutableData", "NSData", "NSObject"]
    private static let fileClasses: [StaticString] = ["MBFile", "NSObject"]

    /// `{"$classes": [classes...], "$classname": name}`: 1 + 2 keys + the array and its strings + the name.
    private mutating func classDictionary(_ name: StaticString, _ classes: [StaticString]) {
        let at = offsets.count
        dictionary(count: 2) { $0.append(UInt8(at + 1)); $0.append(UInt8(at + 2)) } values: {
            $0.append(UInt8(at + 3)); $0.append(UInt8(at + 4 + classes.count))
        }
        string("$classes")
        string("$classname")
        begin()
        marker(0xA0, count: classes.count)
        for index in at + 4..<at + 4 + classes.count { bytes.append(UInt8(index)) }
        for name in classes { string(name) }
        string(name)
    }

    // MARK: - Objects (as BinaryPropertyListWriter writes them)

    private mutating func begin() { offsets.append(bytes.count) }

    private mutating func marker(_ high: UInt8, count: Int) {
        if count < 15 {
            bytes.append(high | UInt8(count))
        } else {
            bytes.append(high | 0x0F)
            appendInteger(Int64(count))
        }
    }

    private mutating func appendInteger(_ value: Int64) {
        let size = value < 0 ? 8 : Self.byteCount(UInt64(value))
        bytes.append(0x10 | (size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3))
        appendBigEndian(UInt64(bitPattern: value), size: size)
    }

    private mutating func integer(_ value: Int64) {
        begin()
        appendInteger(value)
    }

    private mutating func uid(_ value: UInt64) {
        begin()
        let size = Self.byteCount(value)
        bytes.append(0x80 | UInt8(size - 1))
        appendBigEndian(value, size: size)
    }

    /// One of the archive's own names (ASCII).
    private mutating func string(_ text: StaticString) {
        begin()
        let count = text.utf8CodeUnitCount
        marker(0x50, count: count)
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: count))
    }

    private mutating func string(_ text: String) {
        begin()
        var text = text
        text.withUTF8 { utf8 in
            if !utf8.contains(where: { $0 >= 0x80 }) {
                marker(0x50, count: utf8.count)
                bytes.append(contentsOf: utf8)
                return
            }
            marker(0x60, count: String(decoding: utf8, as: UTF8.self).utf16.count)
            for unit in String(decoding: utf8, as: UTF8.self).utf16 { appendBigEndian(UInt64(unit), size: 2) }
        }
    }

    private mutating func data(_ value: [UInt8]) {
        begin()
        marker(0x40, count: value.count)
        bytes += value
    }

    /// A dictionary of `count` keys: `keys` and `values` append their one-byte references.
    private mutating func dictionary(
        count: Int, keys: (inout [UInt8]) -> Void, values: (inout [UInt8]) -> Void
    ) {
        begin()
        marker(0xD0, count: count)
        keys(&bytes)
        values(&bytes)
    }

    private mutating func finish() {
        let table = bytes.count
        let offsetSize = Self.byteCount(UInt64(table))
        for offset in offsets { appendBigEndian(UInt64(offset), size: offsetSize) }
        for _ in 0..<6 { bytes.append(0) }
        bytes.append(UInt8(offsetSize))
        bytes.append(1)
        appendBigEndian(UInt64(offsets.count), size: 8)
        appendBigEndian(0, size: 8)
        appendBigEndian(UInt64(table), size: 8)
    }

    private static func byteCount(_ value: UInt64) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
    }

    private mutating func appendBigEndian(_ value: UInt64, size: Int) {
        var shift = UInt64(size - 1) * 8
        while true {
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
            if shift == 0 { return }
            shift -= 8
        }
    }
}
