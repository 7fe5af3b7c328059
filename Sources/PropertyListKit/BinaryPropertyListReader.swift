// BinaryPropertyListReader: `bplist00` decoding of hostile bytes, with UIDs, within caps checked as it goes.
import Foundation

/// Decodes Apple's binary property lists from someone else's bytes (a backup, a device root): every offset, count and
/// reference is checked against the data before it is used, nesting is capped (`PropertyListLimits.depth`), and so is
/// the number of values produced (`PropertyListLimits.values`: objects can be shared, so a small file could otherwise
/// describe a huge tree, and a reference cycle is caught by the depth cap). Sets, 16-byte integers and non-string keys are refused; so is
/// anything after the trailer's promises (objects beyond the offset table, a table past the end).
public enum BinaryPropertyListReader {
    public static func read(_ bytes: [UInt8], limits: PropertyListLimits) throws(PropertyListReadError) -> PropertyListObject {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(PropertyListReadError) -> PropertyListObject in
                var decoder = try Decoder(buffer, limits: limits)
                return try decoder.object(decoder.top, depth: 0)
            }
        }.get()
    }

    /// The most values read per byte of the file. Writers share equal strings, numbers and data, never a
    /// container, so each value costs at least one byte of reference (Python's plistlib also shares a container
    /// that appears twice as the same object: 16 leaves room for that); sharing containers many times over is how a
    /// file of a few hundred bytes describes billions of values, and this stops it in proportion to the file's size.
    public static let valuesPerByte = 16

    /// Whether `bytes` start as a binary property list does.
    public static func isBinary(_ bytes: some Collection<UInt8>) -> Bool { bytes.starts(with: Array("bplist00".utf8)) }

    private struct Decoder {
        let bytes: UnsafeRawBufferPointer
        let limits: PropertyListLimits
        let offsetSize: Int
        let referenceSize: Int
        let count: Int
        let top: Int
        let table: Int
        /// The most values produced: the limits' or 16 a byte of the file, whichever is lower.
        let cap: Int
        var budget: Int

        init(_ bytes: UnsafeRawBufferPointer, limits: PropertyListLimits) throws(PropertyListReadError) {
            self.bytes = bytes
            self.limits = limits
            cap = min(limits.values, BinaryPropertyListReader.valuesPerByte * max(bytes.count, 256))
            budget = cap
            guard bytes.count >= 8 + 32, BinaryPropertyListReader.isBinary(bytes) else {
                throw PropertyListReadError("not a binary property list")
            }
            let trailer = bytes.count - 32
            offsetSize = Int(bytes[trailer + 6])
            referenceSize = Int(bytes[trailer + 7])
            let objects = Self.bigEndian(bytes, at: trailer + 8, size: 8)
            let topObject = Self.bigEndian(bytes, at: trailer + 16, size: 8)
            let tableOffset = Self.bigEndian(bytes, at: trailer + 24, size: 8)
            guard [1, 2, 4, 8].contains(offsetSize), [1, 2, 4, 8].contains(referenceSize) else {
                throw PropertyListReadError("the trailer's integer sizes are not 1, 2, 4 or 8")
            }
            // The offset table lies between the header and the trailer, one entry an object.
            guard objects > 0, objects <= UInt64(trailer), topObject < objects, tableOffset >= 8,
                tableOffset <= UInt64(trailer), objects * UInt64(offsetSize) <= UInt64(trailer) - tableOffset
            else { throw PropertyListReadError("the trailer describes objects outside the file") }
            count = Int(objects)
            top = Int(topObject)
            table = Int(tableOffset)
        }

        static func bigEndian(_ bytes: UnsafeRawBufferPointer, at offset: Int, size: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in offset..<offset + size { value = value << 8 | UInt64(bytes[index]) }
            return value
        }

        /// The offset of object `index`, inside the object area.
        func offset(of index: Int) throws(PropertyListReadError) -> Int {
            let value = Self.bigEndian(bytes, at: table + index * offsetSize, size: offsetSize)
            guard value >= 8, value < UInt64(table) else { throw PropertyListReadError("an object lies outside the file") }
            return Int(value)
        }

        /// `size` bytes at `offset`, which must lie before the offset table.
        func range(_ offset: Int, _ size: Int) throws(PropertyListReadError) -> Range<Int> {
            guard size >= 0, offset <= table, size <= table - offset else {
                throw PropertyListReadError("an object runs past its data")
            }
            return offset..<offset + size
        }

        /// The count in a marker's low nibble, or the integer object after it; and where the contents start.
        func length(_ marker: UInt8, at offset: Int) throws(PropertyListReadError) -> (Int, Int) {
            let nibble = Int(marker & 0x0F)
            guard nibble == 0x0F else { return (nibble, offset + 1) }
            let start = offset + 1
            _ = try range(start, 1)
            let intMarker = bytes[start]
            guard intMarker & 0xF0 == 0x10, intMarker & 0x0F <= 3 else {
                throw PropertyListReadError("a length that is not an integer")
            }
            let size = 1 << Int(intMarker & 0x0F)
            let value = Self.bigEndian(bytes, at: try range(start + 1, size).lowerBound, size: size)
            guard value <= UInt64(table) else { throw PropertyListReadError("a length past the file's end") }
            return (Int(value), start + 1 + size)
        }

        mutating func object(_ index: Int, depth: Int) throws(PropertyListReadError) -> PropertyListObject {
            budget -= 1
            guard budget >= 0 else {
                throw PropertyListReadError(
                    cap < limits.values
                        ? "more than \(cap) values in \(bytes.count) bytes, objects shared many times"
                        : "more than \(limits.values) values")
            }
            guard depth <= limits.depth else { throw PropertyListReadError("nested deeper than \(limits.depth) levels") }
            guard index >= 0, index < count else { throw PropertyListReadError("a reference to a missing object") }
            let offset = try offset(of: index)
            let marker = bytes[offset]
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x08: return .bool(false)
                case 0x09: return .bool(true)
                default: throw PropertyListReadError("an unknown object (0x\(String(marker, radix: 16)))")
                }
            case 0x1:
                guard marker & 0x0F <= 3 else { throw PropertyListReadError("an integer wider than 8 bytes") }
                let size = 1 << Int(marker & 0x0F)
                let raw = Self.bigEndian(bytes, at: try range(offset + 1, size).lowerBound, size: size)
                // 1, 2 and 4-byte integers are unsigned; 8-byte ones signed.
                return .integer(size == 8 ? Int64(bitPattern: raw) : Int64(raw))
            case 0x2:
                let size = 1 << Int(marker & 0x0F)
                guard size == 4 || size == 8 else { throw PropertyListReadError("a real that is not 4 or 8 bytes") }
                let raw = Self.bigEndian(bytes, at: try range(offset + 1, size).lowerBound, size: size)
                return .real(size == 8 ? Double(bitPattern: raw) : Double(Float(bitPattern: UInt32(raw))))
            case 0x3:
                guard marker == 0x33 else { throw PropertyListReadError("a date that is not 8 bytes") }
                let raw = Self.bigEndian(bytes, at: try range(offset + 1, 8).lowerBound, size: 8)
                let seconds = Double(bitPattern: raw)
                guard seconds.isFinite else { throw PropertyListReadError("a date that is not a number") }
                return .date(Date(timeIntervalSinceReferenceDate: seconds))
            case 0x4:
                let (size, start) = try length(marker, at: offset)
                return .data(Array(bytes[try range(start, size)]))
            case 0x5:
                let (size, start) = try length(marker, at: offset)
                let text = bytes[try range(start, size)]
                guard text.allSatisfy({ $0 < 0x80 }) else { throw PropertyListReadError("an ASCII string that is not ASCII") }
                return .string(String(decoding: text, as: UTF8.self))
            case 0x6:
                let (units, start) = try length(marker, at: offset)
                guard units <= table / 2 else { throw PropertyListReadError("an object runs past its data") }
                let raw = try range(start, units * 2)
                var code: [UInt16] = []
                code.reserveCapacity(units)
                for at in stride(from: raw.lowerBound, to: raw.upperBound, by: 2) {
                    code.append(UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]))
                }
                guard let text = String(validating: code, as: UTF16.self) else {
                    throw PropertyListReadError("a string that is not valid UTF-16")
                }
                return .string(text)
            case 0x8:
                let size = Int(marker & 0x0F) + 1
                guard size <= 8 else { throw PropertyListReadError("a UID wider than 8 bytes") }
                return .uid(Self.bigEndian(bytes, at: try range(offset + 1, size).lowerBound, size: size))
            case 0xA:
                let (elements, start) = try length(marker, at: offset)
                let references = try self.references(elements, at: start)
                var result: [PropertyListObject] = []
                result.reserveCapacity(min(elements, budget))
                for element in 0..<elements {
                    result.append(try object(reference(element, in: references), depth: depth + 1))
                }
                return .array(result)
            case 0xD:
                let (entries, start) = try length(marker, at: offset)
                guard entries <= table / 2 else { throw PropertyListReadError("an object runs past its data") }
                let references = try self.references(entries * 2, at: start)
                var pairs: [(String, PropertyListObject)] = []
                pairs.reserveCapacity(min(entries, budget))
                for entry in 0..<entries {
                    guard case .string(let key) = try object(reference(entry, in: references), depth: depth + 1) else {
                        throw PropertyListReadError("a dictionary key that is not a string")
                    }
                    pairs.append((key, try object(reference(entries + entry, in: references), depth: depth + 1)))
                }
                return .dictionary(pairs)
            default:
                throw PropertyListReadError("an unsupported object (0x\(String(marker, radix: 16)))")
            }
        }

        /// Where a container's `number` references lie (checked to lie before the offset table); read one by one
        /// with `reference(_:in:)`, not copied out (a record's containers are many and small).
        func references(_ number: Int, at start: Int) throws(PropertyListReadError) -> Range<Int> {
            guard number <= table / referenceSize else { throw PropertyListReadError("an object runs past its data") }
            return try range(start, number * referenceSize)
        }

        /// Reference `index` of those at `references`.
        func reference(_ index: Int, in references: Range<Int>) -> Int {
            Int(clamping: Self.bigEndian(bytes, at: references.lowerBound + index * referenceSize, size: referenceSize))
        }
    }
}
