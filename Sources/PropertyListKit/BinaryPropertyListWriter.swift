// BinaryPropertyListWriter: `bplist00` encoding of a `PropertyListObject`, UIDs included.
import Foundation

/// Encodes property lists in Apple's binary format (`bplist00`): the objects depth first (a container before its
/// elements, as NSKeyedArchiver and CoreFoundation lay them out), an offset table and the 32-byte trailer. Strings
/// are ASCII when they can be and UTF-16BE otherwise; integers take the fewest of 1, 2, 4 or 8 bytes (negative
/// ones 8). Nothing is shared between equal objects: the output is what a reader expects, one object per value.
public enum BinaryPropertyListWriter {
    /// The encoded bytes of `root`.
    public static func encode(_ root: PropertyListObject) -> [UInt8] {
        var objects: [PropertyListObject] = []
        var references: [[Int]] = []
        flatten(root, into: &objects, references: &references)
        // Sized for the count, not the largest index: CoreFoundation refuses a file whose object count does not fit
        // in a reference (256 objects with 1-byte references), as Python's plistlib sizes them.
        let referenceSize = byteCount(for: UInt64(objects.count))
        var bytes: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for (index, object) in objects.enumerated() {
            offsets.append(bytes.count)
            write(object, references: references[index], referenceSize: referenceSize, to: &bytes)
        }
        let tableOffset = bytes.count
        let offsetSize = byteCount(for: UInt64(tableOffset))
        for offset in offsets { appendBigEndian(UInt64(offset), size: offsetSize, to: &bytes) }
        bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        appendBigEndian(UInt64(objects.count), size: 8, to: &bytes)
        appendBigEndian(0, size: 8, to: &bytes)
        appendBigEndian(UInt64(tableOffset), size: 8, to: &bytes)
        return bytes
    }

    /// Appends `object` and then its elements (depth first); `references[i]` lists object i's element indices
    /// (a dictionary's keys, then its values).
    @discardableResult
    private static func flatten(
        _ object: PropertyListObject, into objects: inout [PropertyListObject], references: inout [[Int]]
    ) -> Int {
        let index = objects.count
        objects.append(object)
        references.append([])
        switch object {
        case .array(let elements):
            references[index] = elements.map { flatten($0, into: &objects, references: &references) }
        case .dictionary(let pairs):
            let keys = pairs.map { flatten(.string($0.0), into: &objects, references: &references) }
            let values = pairs.map { flatten($0.1, into: &objects, references: &references) }
            references[index] = keys + values
        default:
            break
        }
        return index
    }

    private static func write(
        _ object: PropertyListObject, references: [Int], referenceSize: Int, to bytes: inout [UInt8]
    ) {
        switch object {
        case .bool(let value):
            bytes.append(value ? 0x09 : 0x08)
        case .integer(let value):
            writeInteger(value, to: &bytes)
        case .real(let value):
            bytes.append(0x23)
            appendBigEndian(value.bitPattern, size: 8, to: &bytes)
        case .date(let date):
            bytes.append(0x33)
            appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern, size: 8, to: &bytes)
        case .data(let data):
            writeMarker(0x40, count: data.count, to: &bytes)
            bytes += data
        case .string(let text):
            if text.utf8.allSatisfy({ $0 < 0x80 }) {
                writeMarker(0x50, count: text.utf8.count, to: &bytes)
                bytes += text.utf8
            } else {
                let units = Array(text.utf16)
                writeMarker(0x60, count: units.count, to: &bytes)
                for unit in units { appendBigEndian(UInt64(unit), size: 2, to: &bytes) }
            }
        case .uid(let value):
            let size = byteCount(for: value)
            bytes.append(0x80 | UInt8(size - 1))
            appendBigEndian(value, size: size, to: &bytes)
        case .array:
            writeMarker(0xA0, count: references.count, to: &bytes)
            for reference in references { appendBigEndian(UInt64(reference), size: referenceSize, to: &bytes) }
        case .dictionary:
            writeMarker(0xD0, count: references.count / 2, to: &bytes)
            for reference in references { appendBigEndian(UInt64(reference), size: referenceSize, to: &bytes) }
        }
    }

    /// A marker with its count in the low nibble, or 0xF there and the count as an integer object after it.
    private static func writeMarker(_ marker: UInt8, count: Int, to bytes: inout [UInt8]) {
        if count < 15 {
            bytes.append(marker | UInt8(count))
        } else {
            bytes.append(marker | 0x0F)
            writeInteger(Int64(count), to: &bytes)
        }
    }

    private static func writeInteger(_ value: Int64, to bytes: inout [UInt8]) {
        let size = value < 0 ? 8 : byteCount(for: UInt64(value))
        let exponent: UInt8 = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3
        bytes.append(0x10 | exponent)
        appendBigEndian(UInt64(bitPattern: value), size: size, to: &bytes)
    }

    /// The fewest of 1, 2, 4 or 8 bytes that hold `value`.
    private static func byteCount(for value: UInt64) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
    }

    private static func appendBigEndian(_ value: UInt64, size: Int, to bytes: inout [UInt8]) {
        var shift = UInt64(size - 1) * 8
        while true {
            bytes.append(UInt8(truncatingIfNeeded: value >> shift))
            if shift == 0 { return }
            shift -= 8
        }
    }
}
