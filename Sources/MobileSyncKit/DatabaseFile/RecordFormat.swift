// RecordFormat: SQLite's record format (the file format's §2.1 and §1.6): varints, serial types and records.

/// Encodes values as SQLite stores them in a b-tree cell's payload: a header (its own length, then one serial
/// type a column) followed by the columns' bytes. Integers take the fewest bytes their value needs (0 and 1
/// none: serial types 8 and 9, schema format 4), text and blobs their length.
enum RecordFormat {
    /// One column of a record.
    struct Column {
        let serialType: UInt64
        let integer: Int64
        let bytes: UnsafeRawBufferPointer?

        static func integer(_ value: Int64) -> Column {
            let type: UInt64 = switch value {
            case 0: 8
            case 1: 9
            case -128...127: 1
            case -32768...32767: 2
            case -8_388_608...8_388_607: 3
            case -2_147_483_648...2_147_483_647: 4
            case -140_737_488_355_328...140_737_488_355_327: 5
            default: 6
            }
            return Column(serialType: type, integer: value, bytes: nil)
        }

        static func text(_ bytes: UnsafeRawBufferPointer) -> Column {
            Column(serialType: UInt64(bytes.count) * 2 + 13, integer: 0, bytes: bytes)
        }

        static func blob(_ bytes: UnsafeRawBufferPointer) -> Column {
            Column(serialType: UInt64(bytes.count) * 2 + 12, integer: 0, bytes: bytes)
        }

        static var null: Column { Column(serialType: 0, integer: 0, bytes: nil) }

        /// Bytes of the column's value in the record's body.
        var bodyLength: Int {
            switch serialType {
            case 0, 8, 9: 0
            case 1, 2, 3, 4: Int(serialType)
            case 5: 6
            case 6: 8
            default: bytes?.count ?? 0
            }
        }
    }

    /// Bytes `value` takes as a varint (1 to 9).
    static func varintLength(_ value: UInt64) -> Int {
        if value > 0x00ff_ffff_ffff_ffff { return 9 }  // the ninth byte holds 8 bits
        var length = 1
        var rest = value >> 7
        while rest != 0 {
            length += 1
            rest >>= 7
        }
        return length
    }

    /// Writes `value` as a varint at `start`; returns its length.
    @discardableResult
    static func putVarint(_ value: UInt64, at start: UnsafeMutableRawPointer) -> Int {
        if value > 0x00ff_ffff_ffff_ffff {
            start.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: 8, as: UInt8.self)
            var rest = value >> 8
            for index in stride(from: 7, through: 0, by: -1) {
                start.storeBytes(of: UInt8(rest & 0x7f) | 0x80, toByteOffset: index, as: UInt8.self)
                rest >>= 7
            }
            return 9
        }
        let length = varintLength(value)
        var rest = value
        for index in stride(from: length - 1, through: 0, by: -1) {
            let more: UInt8 = index == length - 1 ? 0 : 0x80
            start.storeBytes(of: UInt8(rest & 0x7f) | more, toByteOffset: index, as: UInt8.self)
            rest >>= 7
        }
        return length
    }

    /// Writes `value` as a big-endian 32-bit integer at `start`.
    static func putUInt32(_ value: UInt32, at start: UnsafeMutableRawPointer) {
        start.storeBytes(of: value.bigEndian, as: UInt32.self)
    }

    /// The length of the record's header (its own varint included) for columns whose serial types take
    /// `typeBytes` bytes.
    private static func headerLength(typeBytes: Int) -> Int {
        var length = typeBytes + 1
        while varintLength(UInt64(length)) + typeBytes != length { length = varintLength(UInt64(length)) + typeBytes }
        return length
    }

    /// Writes at `start` an index entry's record: its value (`text`, or else `integer`) and the row's `rowid` (room
    /// for `indexRecordLength` bytes); returns its length. The same bytes `write` makes of the two columns, without
    /// an array of them.
    @discardableResult
    static func writeIndexRecord(
        text: UnsafeRawBufferPointer?, integer: Int64, rowid: Int64, at start: UnsafeMutableRawPointer
    ) -> Int {
        let first = text.map { Column.text($0) } ?? Column.integer(integer)
        let second = Column.integer(rowid)
        let header = headerLength(typeBytes: varintLength(first.serialType) + varintLength(second.serialType))
        var offset = putVarint(UInt64(header), at: start)
        offset += putVarint(first.serialType, at: start + offset)
        offset += putVarint(second.serialType, at: start + offset)
        if let text {
            if let bytes = text.baseAddress, text.count > 0 {
                (start + offset).copyMemory(from: bytes, byteCount: text.count)
                offset += text.count
            }
        } else {
            offset += putInteger(integer, length: first.bodyLength, at: start + offset)
        }
        offset += putInteger(rowid, length: second.bodyLength, at: start + offset)
        return offset
    }

    /// Bytes of the index record (text of `textLength` bytes, rowid).
    static func indexRecordLength(textLength: Int, rowid: Int64) -> Int {
        let value = UInt64(textLength) * 2 + 13, key = Column.integer(rowid)
        return headerLength(typeBytes: varintLength(value) + varintLength(key.serialType)) + textLength + key.bodyLength
    }

    /// Bytes of the index record (integer, rowid).
    static func indexRecordLength(integer: Int64, rowid: Int64) -> Int {
        let value = Column.integer(integer), key = Column.integer(rowid)
        return headerLength(typeBytes: varintLength(value.serialType) + varintLength(key.serialType)) + value.bodyLength
            + key.bodyLength
    }

    /// Writes the low `length` bytes of `value`, big-endian, at `start`; returns `length`.
    private static func putInteger(_ value: Int64, length: Int, at start: UnsafeMutableRawPointer) -> Int {
        var rest = UInt64(bitPattern: value)
        for index in stride(from: length - 1, through: 0, by: -1) {
            start.storeBytes(of: UInt8(truncatingIfNeeded: rest), toByteOffset: index, as: UInt8.self)
            rest >>= 8
        }
        return length
    }

    /// Bytes of the record of `columns`.
    static func length(of columns: [Column]) -> Int {
        var typeBytes = 0, body = 0
        for column in columns {
            typeBytes += varintLength(column.serialType)
            body += column.bodyLength
        }
        return headerLength(typeBytes: typeBytes) + body
    }

    /// Writes the record of `columns` at `start` (room for `length(of:)` bytes); returns its length.
    @discardableResult
    static func write(_ columns: [Column], at start: UnsafeMutableRawPointer) -> Int {
        var typeBytes = 0
        for column in columns { typeBytes += varintLength(column.serialType) }
        let header = headerLength(typeBytes: typeBytes)
        var offset = putVarint(UInt64(header), at: start)
        for column in columns { offset += putVarint(column.serialType, at: start + offset) }
        for column in columns {
            switch column.serialType {
            case 0, 8, 9:
                break
            case 1...6:
                offset += putInteger(column.integer, length: column.bodyLength, at: start + offset)
            default:
                if let bytes = column.bytes, bytes.count > 0 {
                    (start + offset).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
                    offset += bytes.count
                }
            }
        }
        return offset
    }
}
