// KeyedRecordEncoder: an MBFile record's keyed archive written straight to bytes, for one row a file.
import PropertyListKit

/// Writes what `BinaryPropertyListWriter.encode` writes for a record's keyed-archive tree (byte for byte: the
/// tests compare them), without building the tree: a backup makes one record a file, and building and
/// flattening some forty values each was most of a MobileSync backup's time. Objects are numbered in the
/// writer's order (a container, then its keys, then its values, depth first); every record has fewer than 256,
/// so references take one byte.
struct KeyedRecordEncoder {
    private var bytes: [UInt8] = []
    private var offsets: [Int] = []

    init() {
        bytes.reserveCapacity(512)
        offsets.reserveCapacity(64)
        bytes += "bplist00".utf8
    }

    /// The archive of `record` (see `BackupFileRecord.archived()` for the layout).
    static func encode(_ record: BackupFileRecord) -> [UInt8] {
        var encoder = KeyedRecordEncoder()
        return encoder.archive(record)
    }

    private static let mutableDataClasses = ["NSMutableData", "NSData", "NSObject"]
    private static let fileClasses = ["MBFile", "NSObject"]

    private mutating func archive(_ record: BackupFileRecord) -> [UInt8] {
        // $objects' elements after "$null" and the root: the path, then the optional ones, then the MBFile class.
        let hasTarget = record.target != nil, hasKey = record.encryptionKey != nil
        let attributes = record.extendedAttributes.isEmpty
            ? nil : BinaryPropertyListWriter.encode(.dictionary(record.extendedAttributes.map { ($0.0, .data($0.1)) }))
        var rootKeys = ["LastModified", "Flags", "GroupID", "LastStatusChange", "Birth", "ProtectionClass",
            "InodeNumber", "Mode", "Size", "UserID", "RelativePath"]
        // $objects indices (NSKeyedArchiver's UIDs), as `BackupFileRecord.archived()` documents them.
        var nextIndex: UInt64 = 3
        var rootValues: [Value] = [
            .integer(record.lastModified), .integer(0), .integer(Int64(record.groupID)),
            .integer(record.lastStatusChange), .integer(record.birth), .integer(Int64(record.protectionClass)),
            .integer(Int64(bitPattern: record.inode)), .integer(Int64(record.mode)), .integer(Int64(bitPattern: record.size)),
            .integer(Int64(record.userID)), .uid(2),
        ]
        if hasTarget {
            rootKeys.append("Target")
            rootValues.append(.uid(nextIndex))
            nextIndex += 1
        }
        let keyIndex = nextIndex
        if hasKey {
            rootKeys.append("EncryptionKey")
            rootValues.append(.uid(keyIndex))
            nextIndex += 2
        }
        if attributes != nil {
            rootKeys.append("ExtendedAttributes")
            rootValues.append(.uid(nextIndex))
            nextIndex += 1
        }
        rootKeys.append("$class")
        rootValues.append(.uid(nextIndex))

        // Sizes (objects in a subtree) fix every reference before it is written.
        let rootSize = 1 + 2 * rootKeys.count
        let keySize = 5, mutableClassSize = 8, fileClassSize = 7
        var elementSizes = [1, rootSize, 1]
        if hasTarget { elementSizes.append(1) }
        if hasKey { elementSizes += [keySize, mutableClassSize] }
        if attributes != nil { elementSizes.append(1) }
        elementSizes.append(fileClassSize)

        // 0: the top dictionary; 1-4 its keys; 5, 6 its first values; 7-9 $top; 10 $objects and its elements.
        let objectsIndex = 10
        dictionary(keys: [1, 2, 3, 4], values: [5, 6, 7, objectsIndex])
        for key in ["$version", "$archiver", "$top", "$objects"] { string(key) }
        integer(100_000)
        string("NSKeyedArchiver")
        dictionary(keys: [8], values: [9])
        string("root")
        uid(1)
        var elementIndices: [Int] = []
        var index = objectsIndex + 1
        for size in elementSizes {
            elementIndices.append(index)
            index += size
        }
        array(elementIndices)
        string("$null")
        // The root: its keys, then its values (all scalars).
        let rootIndex = elementIndices[1]
        let count = rootKeys.count
        dictionary(
            keys: Array(rootIndex + 1...rootIndex + count), values: Array(rootIndex + count + 1...rootIndex + 2 * count))
        for key in rootKeys { string(key) }
        for value in rootValues {
            switch value {
            case .integer(let number): integer(number)
            case .uid(let reference): uid(reference)
            }
        }
        string(record.relativePath)
        if let target = record.target { string(target) }
        if let key = record.encryptionKey {
            let at = offsets.count
            dictionary(keys: [at + 1, at + 2], values: [at + 3, at + 4])
            string("NS.data")
            string("$class")
            data(key)
            uid(keyIndex + 1)
            classDictionary("NSMutableData", Self.mutableDataClasses)
        }
        if let attributes { data(attributes) }
        classDictionary("MBFile", Self.fileClasses)
        return finish()
    }

    private enum Value {
        case integer(Int64)
        case uid(UInt64)
    }

    /// `{"$classes": [classes...], "$classname": name}`: 1 + 2 keys + the array and its strings + the name.
    private mutating func classDictionary(_ name: String, _ classes: [String]) {
        let at = offsets.count
        dictionary(keys: [at + 1, at + 2], values: [at + 3, at + 4 + classes.count])
        string("$classes")
        string("$classname")
        array(Array(at + 4..<at + 4 + classes.count))
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

    private mutating func string(_ text: String) {
        begin()
        var text = text
        text.withUTF8 { utf8 in
            if !utf8.contains(where: { $0 >= 0x80 }) {
                marker(0x50, count: utf8.count)
                bytes.append(contentsOf: utf8)
                return
            }
            let units = Array(String(decoding: utf8, as: UTF8.self).utf16)
            marker(0x60, count: units.count)
            for unit in units { appendBigEndian(UInt64(unit), size: 2) }
        }
    }

    private mutating func data(_ value: [UInt8]) {
        begin()
        marker(0x40, count: value.count)
        bytes += value
    }

    private mutating func array(_ elements: [Int]) {
        begin()
        marker(0xA0, count: elements.count)
        for element in elements { bytes.append(UInt8(element)) }
    }

    private mutating func dictionary(keys: [Int], values: [Int]) {
        begin()
        marker(0xD0, count: keys.count)
        for key in keys { bytes.append(UInt8(key)) }
        for value in values { bytes.append(UInt8(value)) }
    }

    private mutating func finish() -> [UInt8] {
        let table = bytes.count
        let offsetSize = Self.byteCount(UInt64(table))
        for offset in offsets { appendBigEndian(UInt64(offset), size: offsetSize) }
        bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), 1]
        appendBigEndian(UInt64(offsets.count), size: 8)
        appendBigEndian(0, size: 8)
        appendBigEndian(UInt64(table), size: 8)
        return bytes
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
