// KeyedRecordEncoder: an MBFile record's keyed archive written straight to bytes, for one row a file.
import PropertyListKit

/// Writes what `BinaryPropertyListWriter.encode` writes for a record's keyed-archive tree (byte for byte: the
/// tests compare them), without building the tree: a backup makes one record a file, and building and
/// flattening some forty values each was most of a MobileSync backup's time. Objects are numbered in the
/// writer's order (a container, then its keys, then its values, depth first); every record has fewer than 256,
/// so references take one byte. One encoder reuses its buffer from record to record (`withArchive`), made large
/// enough for the record before it is written, so that each byte is a plain store (appending to an array byte by
/// byte, each append checking the array's uniqueness and capacity, was most of the row thread's time): a row costs
/// no allocation but the attributes' plist.
public struct KeyedRecordEncoder {
    /// The buffer and the objects' offsets, reused from record to record.
    private final class Storage {
        var base: UnsafeMutableRawPointer
        var capacity: Int
        /// Each object's offset from the start (fewer than 256 objects a record).
        let offsets = UnsafeMutablePointer<Int>.allocate(capacity: 256)

        init() {
            capacity = 4096
            base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        }

        deinit {
            base.deallocate()
            offsets.deallocate()
        }

        /// Room for `bytes` (what was written is not kept: called before a record).
        func reserve(_ bytes: Int) {
            guard bytes > capacity else { return }
            base.deallocate()
            capacity = max(bytes, 2 * capacity)
            base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        }
    }

    private let storage = Storage()
    /// The storage's buffer and offsets, held here while a record is written (no class access a byte).
    private var base: UnsafeMutableRawPointer
    private let offsets: UnsafeMutablePointer<Int>
    /// Bytes written of the current record, and objects begun.
    private var count = 0
    private var objects = 0

    public init() {
        base = storage.base
        offsets = storage.offsets
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
        let attributes = record.extendedAttributes.isEmpty
            ? nil : BinaryPropertyListWriter.encode(.dictionary(record.extendedAttributes.map { ($0.0, .data($0.1)) }))
        // The archive's own names, markers and integers come to under 1,500 bytes and the offset table to under 2,048
        // (fewer than 256 objects of at most 8 bytes); text takes at most two bytes a UTF-8 byte (UTF-16), and every
        // object at most 9 bytes of marker; 8 spare bytes for the big-endian stores, which write 8 bytes.
        storage.reserve(
            4096 + 2 * record.relativePath.utf8.count + 2 * (record.target?.utf8.count ?? 0)
                + (record.encryptionKey?.count ?? 0) + (attributes?.count ?? 0) + 64)
        base = storage.base
        count = 0
        objects = 0
        archive(record, attributes: attributes)
        return try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The root's keys, in order; the optional ones (`Target`, `EncryptionKey`, `ExtendedAttributes`) and `$class`
    /// follow.
    private static let fixedRootKeys: [StaticString] = [
        "LastModified", "Flags", "GroupID", "LastStatusChange", "Birth", "ProtectionClass", "InodeNumber", "Mode",
        "Size", "UserID", "RelativePath",
    ]

    private mutating func archive(_ record: BackupFileRecord, attributes: [UInt8]?) {
        append(StaticString("bplist00"))
        // $objects' elements after "$null" and the root: the path, then the optional ones, then the MBFile class.
        let hasTarget = record.target != nil, hasKey = record.encryptionKey != nil
        let rootCount = Self.fixedRootKeys.count + (hasTarget ? 1 : 0) + (hasKey ? 1 : 0) + (attributes != nil ? 1 : 0) + 1
        // $objects indices (NSKeyedArchiver's UIDs), as `BackupFileRecord.archived()` documents them: 0 $null,
        // 1 the root, 2 the path, then the target, the key and its class, the attributes, the MBFile class.
        let targetIndex: UInt64 = 3
        let keyIndex = targetIndex + (hasTarget ? 1 : 0)
        let attributesIndex = keyIndex + (hasKey ? 2 : 0)
        let classIndex = attributesIndex + (attributes != nil ? 1 : 0)

        // 0: the top dictionary; 1-4 its keys; 5, 6 its first values; 7-9 $top; 10 $objects and its elements.
        let objectsIndex = 10
        dictionary(count: 4, keys: 1)
        byte(5)
        byte(6)
        byte(7)
        byte(objectsIndex)
        string("$version")
        string("$archiver")
        string("$top")
        string("$objects")
        integer(100_000)
        string("NSKeyedArchiver")
        dictionary(count: 1, keys: 8)
        byte(9)
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
        byte(next)  // $null
        byte(next + 1)  // the root
        byte(next + 1 + rootSize)  // the path
        next += 1 + rootSize + 1
        if hasTarget {
            byte(next)
            next += 1
        }
        if hasKey {
            byte(next)
            byte(next + 5)
            next += 5 + 8
        }
        if attributes != nil {
            byte(next)
            next += 1
        }
        byte(next)
        string("$null")
        // The root: its keys, then its values (all scalars).
        dictionary(count: rootCount, keys: rootIndex + 1)
        for index in rootIndex + rootCount + 1...rootIndex + 2 * rootCount { byte(index) }
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
            let at = objects
            dictionary(count: 2, keys: at + 1)
            byte(at + 3)
            byte(at + 4)
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
        let at = objects
        dictionary(count: 2, keys: at + 1)
        byte(at + 3)
        byte(at + 4 + classes.count)
        string("$classes")
        string("$classname")
        begin()
        marker(0xA0, count: classes.count)
        for index in at + 4..<at + 4 + classes.count { byte(index) }
        for name in classes { string(name) }
        string(name)
    }

    // MARK: - Objects (as BinaryPropertyListWriter writes them)

    private mutating func begin() {
        // Every record has fewer than 256 objects whatever its values (about 70 at most): the table's room.
        precondition(objects < 256)
        offsets[objects] = count
        objects += 1
    }

    private mutating func byte(_ value: UInt8) {
        base.storeBytes(of: value, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    /// A one-byte object reference.
    private mutating func byte(_ reference: Int) {
        byte(UInt8(truncatingIfNeeded: reference))
    }

    private mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let start = bytes.baseAddress, bytes.count > 0 else { return }
        (base + count).copyMemory(from: start, byteCount: bytes.count)
        count += bytes.count
    }

    private mutating func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    private mutating func marker(_ high: UInt8, count: Int) {
        if count < 15 {
            byte(high | UInt8(count))
        } else {
            byte(high | 0x0F)
            appendInteger(Int64(count))
        }
    }

    private mutating func appendInteger(_ value: Int64) {
        let size = value < 0 ? 8 : Self.byteCount(UInt64(value))
        byte(0x10 | (size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3))
        appendBigEndian(UInt64(bitPattern: value), size: size)
    }

    private mutating func integer(_ value: Int64) {
        begin()
        appendInteger(value)
    }

    private mutating func uid(_ value: UInt64) {
        begin()
        let size = Self.byteCount(value)
        byte(0x80 | UInt8(size - 1))
        appendBigEndian(value, size: size)
    }

    /// One of the archive's own names (ASCII).
    private mutating func string(_ text: StaticString) {
        begin()
        marker(0x50, count: text.utf8CodeUnitCount)
        append(text)
    }

    private mutating func string(_ text: String) {
        begin()
        var text = text
        text.withUTF8 { utf8 in
            if !utf8.contains(where: { $0 >= 0x80 }) {
                marker(0x50, count: utf8.count)
                append(UnsafeRawBufferPointer(utf8))
                return
            }
            let units = String(decoding: utf8, as: UTF8.self).utf16
            marker(0x60, count: units.count)
            for unit in units { appendBigEndian(UInt64(unit), size: 2) }
        }
    }

    private mutating func data(_ value: [UInt8]) {
        begin()
        marker(0x40, count: value.count)
        value.withUnsafeBytes { append($0) }
    }

    /// A dictionary of `count` keys, numbered from `keys` (its values' references follow, one byte each).
    private mutating func dictionary(count: Int, keys: Int) {
        begin()
        marker(0xD0, count: count)
        for index in keys..<keys + count { byte(index) }
    }

    private mutating func finish() {
        let table = count
        let offsetSize = Self.byteCount(UInt64(table))
        for index in 0..<objects { appendBigEndian(UInt64(offsets[index]), size: offsetSize) }
        for _ in 0..<6 { byte(UInt8(0)) }
        byte(UInt8(offsetSize))
        byte(UInt8(1))
        appendBigEndian(UInt64(objects), size: 8)
        appendBigEndian(0, size: 8)
        appendBigEndian(UInt64(table), size: 8)
    }

    private static func byteCount(_ value: UInt64) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
    }

    /// The last `size` bytes of `value`'s big-endian form, in one 8-byte store (the buffer has the room past them).
    private mutating func appendBigEndian(_ value: UInt64, size: Int) {
        let shifted = size == 8 ? value : value << UInt64(64 - 8 * size)
        base.storeBytes(of: shifted.bigEndian, toByteOffset: count, as: UInt64.self)
        count += size
    }
}
