// TarLayout: where the members of an uncompressed tar stream are, so the fuzzer can duplicate, reorder,
// drop or rewrite whole members and their header fields (with a valid checksum, to get past the first check).
import Foundation

/// The members of a tar stream: each is its extension headers (pax `x`/`g`, GNU `L`/`K`), its header,
/// its data and padding. Parsing stops at the end-of-archive mark or at the first thing it cannot follow.
struct TarLayout {
    struct Entry {
        /// The whole member: extension headers, header, data, padding.
        var range: Range<Int>
        /// Offset of the member's own (last) header.
        var header: Int
        /// Offset of its pax extended header (`x`), if any.
        var pax: Int?
        /// The member's name from its ustar header (without the prefix field).
        var name: [UInt8]
        var type: UInt8
    }

    var entries: [Entry] = []
    /// Where the end-of-archive mark starts (the stream's length when there is none).
    var trailer: Int

    init(_ bytes: [UInt8]) {
        var offset = 0
        var extensionStart: Int?
        var pax: Int?
        var paxSize: Int?
        trailer = bytes.count
        while offset + 512 <= bytes.count {
            let block = bytes[offset..<(offset + 512)]
            if block.allSatisfy({ $0 == 0 }) {
                trailer = offset
                return
            }
            let type = bytes[offset + 156]
            guard let size = TarLayout.number(bytes[(offset + 124)..<(offset + 136)]), size < 1 << 40 else {
                trailer = offset
                return
            }
            let next = offset + 512 + TarLayout.padded(size)
            switch type {
            case UInt8(ascii: "x"), UInt8(ascii: "g"), UInt8(ascii: "L"), UInt8(ascii: "K"):
                if extensionStart == nil { extensionStart = offset }
                if type == UInt8(ascii: "x"), next <= bytes.count {
                    pax = offset
                    paxSize = PaxRecords(Array(bytes[(offset + 512)..<(offset + 512 + size)])).value("size")
                        .flatMap { Int($0) }.flatMap { (0..<(1 << 40)).contains($0) ? $0 : nil }
                }
                offset = next
                continue
            default:
                break
            }
            let linkLike = [UInt8]("123456".utf8).contains(type)
            let dataSize = paxSize ?? (linkLike ? 0 : size)
            let end = offset + 512 + TarLayout.padded(dataSize)
            guard end <= bytes.count else {
                trailer = offset
                return
            }
            let name = Array(bytes[offset..<(offset + 100)].prefix { $0 != 0 })
            entries.append(
                Entry(range: (extensionStart ?? offset)..<end, header: offset, pax: pax, name: name, type: type))
            extensionStart = nil
            pax = nil
            paxSize = nil
            offset = end
        }
        trailer = min(offset, bytes.count)
    }

    /// The member named like the manifest, if any.
    var manifest: Entry? {
        entries.last { $0.name == Array(".devicectl-manifest.jsonl".utf8) }
    }

    static func padded(_ size: Int) -> Int { (size + 511) / 512 * 512 }

    /// An octal (or base-256) header number, nil when it is not one.
    static func number(_ field: ArraySlice<UInt8>) -> Int? {
        guard let first = field.first else { return nil }
        if first & 0x80 != 0 {
            var value = Int(first & 0x3F)
            for byte in field.dropFirst() {
                guard value < Int.max >> 9 else { return nil }
                value = value << 8 | Int(byte)
            }
            return value
        }
        var value = 0
        var sawDigit = false
        for byte in field.drop(while: { $0 == 0x20 }) {
            guard (0x30...0x37).contains(byte) else { break }
            guard value < Int.max >> 4 else { return nil }
            value = value << 3 | Int(byte - 0x30)
            sawDigit = true
        }
        return sawDigit ? value : 0
    }

    // MARK: - Header fields

    /// Writes `value` into the header field at `offset` (zero-filled to `width`) and fixes the checksum.
    static func setField(_ bytes: inout [UInt8], header: Int, offset: Int, width: Int, _ value: [UInt8]) {
        for index in 0..<width { bytes[header + offset + index] = index < value.count ? value[index] : 0 }
        fixChecksum(&bytes, header: header)
    }

    /// `value` as a NUL-terminated octal field of `width` bytes (cut to fit).
    static func octal(_ value: Int, width: Int) -> [UInt8] {
        let digits = String(value, radix: 8)
        let padded = String(repeating: "0", count: max(0, width - 1 - digits.count)) + digits
        return Array(padded.suffix(width - 1).utf8) + [0]
    }

    /// Recomputes the header checksum (bytes 148..<156), as every tar reader checks it first.
    static func fixChecksum(_ bytes: inout [UInt8], header: Int) {
        for index in 148..<156 { bytes[header + index] = 0x20 }
        var sum = 0
        for index in 0..<512 { sum += Int(bytes[header + index]) }
        let text = Array(octal(sum, width: 7)) + [0x20]
        for index in 0..<8 { bytes[header + 148 + index] = text[index] }
    }

    /// A plain ustar header (checksum set) for a member of `type` named `name` with `size` bytes of data.
    static func header(name: [UInt8], type: UInt8, size: Int, mode: Int = 0o644, link: [UInt8] = []) -> [UInt8] {
        var block = [UInt8](repeating: 0, count: 512)
        for (index, byte) in name.prefix(100).enumerated() { block[index] = byte }
        for (offset, field) in [
            (100, octal(mode, width: 8)), (108, octal(0, width: 8)), (116, octal(0, width: 8)),
            (124, octal(size, width: 12)), (136, octal(1_700_000_000, width: 12)),
        ] {
            for (index, byte) in field.enumerated() { block[offset + index] = byte }
        }
        block[156] = type
        for (index, byte) in link.prefix(100).enumerated() { block[157 + index] = byte }
        for (index, byte) in "ustar\u{0}00".utf8.enumerated() { block[257 + index] = byte }
        fixChecksum(&block, header: 0)
        return block
    }

    /// Rewrites `entry`'s pax extended header (adding one when it has none) with `edit` applied to its records.
    static func editPax(_ bytes: inout [UInt8], _ entry: Entry, _ edit: (inout PaxRecords) -> Void) {
        var records = PaxRecords(records: [])
        var end = entry.header
        if let pax = entry.pax {
            let size = number(bytes[(pax + 124)..<(pax + 136)]) ?? 0
            records = PaxRecords(Array(bytes[(pax + 512)..<min(bytes.count, pax + 512 + size)]))
            end = pax + 512 + padded(size)
        }
        edit(&records)
        let body = records.encoded
        let header = header(name: Array("PaxHeader/edited".utf8), type: UInt8(ascii: "x"), size: body.count)
        bytes.replaceSubrange((entry.pax ?? entry.header)..<end, with: header + padding(body))
    }

    /// `data` followed by zeros to the next 512-byte boundary.
    static func padding(_ data: [UInt8]) -> [UInt8] {
        data + [UInt8](repeating: 0, count: padded(data.count) - data.count)
    }
}

/// A pax extended header body as records (`LEN key=value\n`), editable and re-encodable.
struct PaxRecords {
    var records: [(key: String, value: [UInt8])] = []

    init(_ body: [UInt8]) {
        var rest = body[...]
        while let space = rest.firstIndex(of: 0x20),
            let length = Int(String(decoding: rest[rest.startIndex..<space], as: UTF8.self)),
            length > 0, rest.startIndex + length <= rest.endIndex,
            rest.startIndex + length - 1 >= space + 1  // a length that ends before its own key: not a record
        {
            let record = rest[(space + 1)..<(rest.startIndex + length - 1)]
            if let equals = record.firstIndex(of: UInt8(ascii: "=")) {
                records.append(
                    (
                        String(decoding: record[record.startIndex..<equals], as: UTF8.self),
                        Array(record[(equals + 1)...])
                    ))
            }
            rest = rest[(rest.startIndex + length)...]
        }
    }

    init(records: [(key: String, value: [UInt8])]) {
        self.records = records
    }

    func value(_ key: String) -> String? {
        records.last { $0.key == key }.map { String(decoding: $0.value, as: UTF8.self) }
    }

    /// The body: each record with its self-inclusive decimal length.
    var encoded: [UInt8] {
        records.flatMap { PaxRecords.record($0.key, $0.value) }
    }

    static func record(_ key: String, _ value: [UInt8]) -> [UInt8] {
        let rest = Array(" \(key)=".utf8) + value + [0x0A]
        var length = rest.count + 1
        while String(length).count + rest.count != length { length = String(length).count + rest.count }
        return Array(String(length).utf8) + rest
    }
}
