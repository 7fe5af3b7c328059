// PaxHeader: a member's header blocks as a POSIX pax stream holds them (ustar, plus a pax extended header if needed).
import SystemKit

/// Builds the header of one member (POSIX.1-2001 pax interchange format): a 512-byte ustar header, preceded by a pax
/// extended header (typeflag `x`) only when the ustar fields cannot hold the member: a nanosecond mtime, a name or
/// link target that is long, not ASCII or not UTF-8 (`hdrcharset=BINARY`), a size, owner or time out of the octal
/// fields' range, `SCHILY.xattr.*` attributes, or a GNU sparse 1.0 member (`GNU.sparse.*`, its map at the start of
/// the data). The records libarchive's pax writer used for the same members, which GNU tar and bsdtar read without a
/// warning; every key is one libarchive's reader interprets (an unknown key is what the framing audit reports).
/// One builder is reused for every member (its buffers are kept); a header costs no allocation in the common case.
struct PaxHeader {
    static let block = 512
    /// A block of zeros, appended as one copy (a `repeatElement` sequence was appended byte by byte: two headers and
    /// the extended header's padding, every member).
    private static let zeroBlock = [UInt8](repeating: 0, count: block)
    /// The pax records of the member being built.
    private var records: [UInt8] = []
    /// A directory's name with its `/`, or a sparse member's placeholder name.
    private var name: [UInt8] = []
    /// A numeric record's value as text (reused: a record costs no allocation).
    private var value: [UInt8] = []

    init() {
        records.reserveCapacity(1024)
        name.reserveCapacity(256)
        value.reserveCapacity(32)
    }

    /// Appends the header blocks of `entry` to `out`; returns the bytes of data that follow (a sparse member's map
    /// included) and, for a sparse member, its map (written first by the caller, before the regions' bytes).
    mutating func append(_ entry: ArchiveEntry, to out: inout [UInt8]) -> (stored: UInt64, sparseMap: [UInt8]?) {
        records.removeAll(keepingCapacity: true)
        name.removeAll(keepingCapacity: true)
        let type = Self.typeflag(entry)
        name += entry.path
        if type == UInt8(ascii: "5") && name.last != UInt8(ascii: "/") { name.append(UInt8(ascii: "/")) }
        let asciiName = Self.isASCII(name)
        var binary = !(asciiName || Self.isUTF8(name)) || !(entry.link.map(Self.isUTF8) ?? true)

        // A sparse member: the ustar name is GNU's placeholder, the real name and size go in GNU.sparse.*.
        var sparseMap: [UInt8]?
        var size = UInt64(entry.size)
        var sparseRecords: [UInt8] = []
        if let given = entry.regions, type == UInt8(ascii: "0") {
            // A file that ends in a hole ends its map with an empty region at its end, as GNU tar writes it (GNU tar
            // would otherwise extract it short).
            var regions = given.map { ($0.offset, $0.length) }
            if let last = regions.last, last.0 + last.1 < UInt64(entry.size) { regions.append((UInt64(entry.size), 0)) }
            var map: [UInt8] = []
            NumberText.appendDecimal(UInt64(regions.count), to: &map)
            map.append(0x0A)
            for region in regions {
                NumberText.appendDecimal(region.0, to: &map)
                map.append(0x0A)
                NumberText.appendDecimal(region.1, to: &map)
                map.append(0x0A)
            }
            map += [UInt8](repeating: 0, count: (Self.block - map.count % Self.block) % Self.block)
            size = UInt64(map.count) + regions.reduce(0) { $0 + $1.1 }
            Self.appendRecord("GNU.sparse.major", Array("1".utf8)[...], to: &sparseRecords)
            Self.appendRecord("GNU.sparse.minor", Array("0".utf8)[...], to: &sparseRecords)
            Self.appendRecord("GNU.sparse.name", name[...], to: &sparseRecords)
            var realSize: [UInt8] = []
            NumberText.appendDecimal(UInt64(entry.size), to: &realSize)
            Self.appendRecord("GNU.sparse.realsize", realSize[...], to: &sparseRecords)
            let slash = name.lastIndex(of: UInt8(ascii: "/"))
            let directory = slash.map { Array(name[...$0]) } ?? []
            let base = slash.map { Array(name[($0 + 1)...]) } ?? name
            name = directory + Array("GNUSparseFile.0/".utf8) + base
            sparseMap = map
        }

        // The name: in ustar's name (and prefix) when it is ASCII and fits, else in a pax `path`.
        let split = asciiName ? Self.split(name) : nil
        if split == nil { Self.appendRecord("path", name[...], to: &records) }
        var linkInPax = false
        if let link = entry.link, !(Self.isASCII(link) && link.count <= 100) {
            Self.appendRecord("linkpath", link[...], to: &records)
            linkInPax = true
        }
        if entry.mtimeNanoseconds != 0 || entry.mtimeSeconds < 0 || entry.mtimeSeconds > Self.maxOctal11 {
            value.removeAll(keepingCapacity: true)
            Self.appendTime(entry.mtimeSeconds, entry.mtimeNanoseconds, to: &value)
            Self.appendRecord("mtime", value[...], to: &records)
        }
        if size > UInt64(Self.maxOctal11) { appendNumberRecord("size", size) }
        if entry.uid > Self.maxOctal7 { appendNumberRecord("uid", UInt64(entry.uid)) }
        if entry.gid > Self.maxOctal7 { appendNumberRecord("gid", UInt64(entry.gid)) }
        records += sparseRecords
        for attribute in entry.attributes {
            if !Self.isUTF8(attribute.name) { binary = true }
            Self.appendRecord(prefix: "SCHILY.xattr.", attribute.name[...], value: attribute.value[...], to: &records)
        }
        if !records.isEmpty {
            if binary {
                var charset: [UInt8] = []
                Self.appendRecord("hdrcharset", Array("BINARY".utf8)[...], to: &charset)
                records = charset + records
            }
            // `PaxHeader/<the member's last name>`, as libarchive names it (readers do not use it).
            let trimmed = name.last == UInt8(ascii: "/") ? name.dropLast() : name[...]
            let base = trimmed.lastIndex(of: UInt8(ascii: "/")).map { trimmed[($0 + 1)...] } ?? trimmed
            Self.appendUstar(
                name: Self.extendedHeaderDirectory[...], extra: base, prefix: [], mode: 0o644, uid: 0, gid: 0,
                size: UInt64(records.count), mtime: Self.clampedSeconds(entry.mtimeSeconds), type: UInt8(ascii: "x"),
                link: [], to: &out)
            out += records
            out.append(contentsOf: Self.zeroBlock[..<((Self.block - records.count % Self.block) % Self.block)])
        }
        let (prefix, field): (ArraySlice<UInt8>, ArraySlice<UInt8>) =
            split.map { $0 == 0 ? ([], name[...]) : (name[..<$0], name[($0 + 1)...]) } ?? ([], name[...])
        Self.appendUstar(
            name: field, extra: [], prefix: prefix, mode: entry.mode & 0o7777,
            uid: entry.uid <= Self.maxOctal7 ? entry.uid : 0, gid: entry.gid <= Self.maxOctal7 ? entry.gid : 0,
            size: size <= UInt64(Self.maxOctal11) ? size : 0, mtime: Self.clampedSeconds(entry.mtimeSeconds), type: type,
            link: (entry.link ?? [])[...], placeholders: split == nil,
            linkPlaceholder: linkInPax, to: &out)
        let hasData = type == UInt8(ascii: "0") || type == UInt8(ascii: "7")
        return (hasData ? size : 0, sparseMap)
    }

    // MARK: - Fields

    private static func typeflag(_ entry: ArchiveEntry) -> UInt8 {
        if entry.isHardlink { return UInt8(ascii: "1") }
        switch entry.mode & 0o170000 {
        case 0o120000: return UInt8(ascii: "2")
        case 0o040000: return UInt8(ascii: "5")
        case 0o020000: return UInt8(ascii: "3")
        case 0o060000: return UInt8(ascii: "4")
        case 0o010000: return UInt8(ascii: "6")
        default: return UInt8(ascii: "0")
        }
    }

    /// The largest values the octal fields hold: 11 digits (size, mtime), 7 digits (uid, gid).
    private static let maxOctal11: Int64 = (1 << 33) - 1
    private static let maxOctal7: UInt32 = (1 << 21) - 1

    private static func clampedSeconds(_ seconds: Int64) -> UInt64 { UInt64(min(max(seconds, 0), maxOctal11)) }

    /// `seconds` and `nanoseconds` as a pax time, as libarchive writes and reads one: the seconds as they are (negative
    /// before 1970), then the fraction, which counts forward (`-2.5` is 2 s before 1970 plus half a second), trailing
    /// zeros dropped.
    static func appendTime(_ seconds: Int64, _ nanoseconds: UInt32, to out: inout [UInt8]) {
        if seconds < 0 { out.append(UInt8(ascii: "-")) }
        NumberText.appendDecimal(seconds.magnitude, to: &out)
        guard nanoseconds != 0 else { return }
        out.append(UInt8(ascii: "."))
        var digits = nanoseconds, width = 9
        while digits % 10 == 0 {
            digits /= 10
            width -= 1
        }
        var divisor: UInt32 = 1
        for _ in 1..<width { divisor *= 10 }
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(digits / divisor % 10))
            divisor /= 10
        }
    }

    /// Where ustar's prefix ends when `path` (ASCII) fits (name at most 100 bytes, prefix at most 155, split at a
    /// `/`): 0 for a name alone; nil when a pax `path` must hold it.
    private static func split(_ path: [UInt8]) -> Int? {
        guard !path.isEmpty else { return nil }
        if path.count <= 100 { return 0 }
        guard path.count <= 256 else { return nil }
        // The first `/` that leaves at most 100 bytes after it (a directory's own trailing `/` is part of the name).
        for index in max(1, path.count - 101)..<min(path.count - 1, 156) where path[index] == UInt8(ascii: "/") {
            return index
        }
        return nil
    }

    /// No byte at or above 0x80 and no NUL (one pass without branches: names are checked twice a member).
    private static func isASCII(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            var bad: UInt8 = 0
            for byte in buffer { bad |= (byte & 0x80) | (byte == 0 ? 1 : 0) }
            return bad == 0
        }
    }

    private static func isUTF8(_ bytes: [UInt8]) -> Bool {
        if isASCII(bytes) { return true }
        return Array(String(decoding: bytes, as: UTF8.self).utf8) == bytes
    }

    /// Appends the record `LENGTH key=value\n` (LENGTH counts the whole record, its own digits included).
    private static func appendRecord(_ key: StaticString, _ value: ArraySlice<UInt8>, to out: inout [UInt8]) {
        appendRecord(prefix: key, [], value: value, to: &out)
    }

    /// The record `key=number` in decimal.
    private mutating func appendNumberRecord(_ key: StaticString, _ number: UInt64) {
        value.removeAll(keepingCapacity: true)
        NumberText.appendDecimal(number, to: &value)
        Self.appendRecord(key, value[...], to: &records)
    }

    /// The directory part of an extended header's name (`PaxHeader/<the member's last name>`).
    private static let extendedHeaderDirectory = Array("PaxHeader/".utf8)
    private static let ustarMagic = Array("ustar".utf8)
    private static let ustarVersion = Array("00".utf8)

    /// The record `LENGTH <prefix><key>=value\n`.
    private static func appendRecord(
        prefix: StaticString, _ key: ArraySlice<UInt8>, value: ArraySlice<UInt8>, to out: inout [UInt8]
    ) {
        let body = prefix.utf8CodeUnitCount + key.count + value.count + 3  // space, `=`, newline
        var length = body + digits(body)
        if digits(length) != digits(body) { length = body + digits(length) }
        NumberText.appendDecimal(UInt64(length), to: &out)
        out.append(UInt8(ascii: " "))
        out.append(contentsOf: UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
        out += key
        out.append(UInt8(ascii: "="))
        out += value
        out.append(0x0A)
    }

    private static func digits(_ value: Int) -> Int {
        var count = 1, rest = value
        while rest >= 10 {
            rest /= 10
            count += 1
        }
        return count
    }

    /// Appends one 512-byte ustar header: `name` then `extra` in the name field; with `placeholders`, a name or link
    /// target a pax record holds is written as ASCII (other bytes as `_`), cut at 100 bytes.
    private static func appendUstar(
        name: ArraySlice<UInt8>, extra: ArraySlice<UInt8>, prefix: ArraySlice<UInt8>, mode: UInt32, uid: UInt32,
        gid: UInt32, size: UInt64, mtime: UInt64, type: UInt8, link: ArraySlice<UInt8>, placeholders: Bool = false,
        linkPlaceholder: Bool = false, to out: inout [UInt8]
    ) {
        let start = out.count
        out.append(contentsOf: zeroBlock)
        out.withUnsafeMutableBufferPointer { buffer in
            let header = UnsafeMutableBufferPointer(rebasing: buffer[start..<(start + block)])
            // The checksum is the header's bytes summed with its own field as spaces. The header starts as zeros, so
            // that is the sum of what is put in it, which each field adds as it is written (a pass over all 512 bytes
            // and a byte-by-byte copy of the names were half of this function's time).
            var sum = 8 * UInt32(UInt8(ascii: " "))
            func put(_ bytes: ArraySlice<UInt8>, at offset: Int, width: Int, used: Int = 0, ascii: Bool = false) -> Int {
                let count = min(bytes.count, width - used)
                guard count > 0 else { return used }
                bytes.withUnsafeBufferPointer { source in
                    let target = header.baseAddress! + offset + used
                    target.update(from: source.baseAddress!, count: count)
                    var added: UInt32 = 0
                    var outside: UInt8 = 0
                    for byte in UnsafeBufferPointer(start: source.baseAddress!, count: count) {
                        added &+= UInt32(byte)
                        outside |= byte &- 0x20 >= 0x5F ? 1 : 0
                    }
                    if ascii && outside != 0 {
                        // Shown as ASCII: a control character or a byte from 0x7F as `_`.
                        added = 0
                        for index in 0..<count {
                            if target[index] < 0x20 || target[index] >= 0x7F { target[index] = UInt8(ascii: "_") }
                            added &+= UInt32(target[index])
                        }
                    }
                    sum &+= added
                }
                return used + count
            }
            func octal(_ value: UInt64, at offset: Int, width: Int) {
                // `width - 1` digits, zero-padded, then the NUL already there.
                var rest = value
                for index in stride(from: offset + width - 2, through: offset, by: -1) {
                    header[index] = UInt8(ascii: "0") + UInt8(rest & 7)
                    sum &+= UInt32(header[index])
                    rest >>= 3
                }
            }
            let used = put(name, at: 0, width: 100, ascii: placeholders)
            _ = put(extra, at: 0, width: 100, used: used, ascii: true)
            octal(UInt64(mode), at: 100, width: 8)
            octal(UInt64(uid), at: 108, width: 8)
            octal(UInt64(gid), at: 116, width: 8)
            octal(size, at: 124, width: 12)
            octal(mtime, at: 136, width: 12)
            header[156] = type
            sum &+= UInt32(type)
            _ = put(link, at: 157, width: 100, ascii: linkPlaceholder)
            _ = put(ustarMagic[...], at: 257, width: ustarMagic.count)
            _ = put(ustarVersion[...], at: 263, width: ustarVersion.count)
            octal(0, at: 329, width: 8)
            octal(0, at: 337, width: 8)
            _ = put(prefix, at: 345, width: 155)
            // Six octal digits, NUL, space (what `octal` adds to `sum` now is past use).
            octal(UInt64(sum), at: 148, width: 7)
            header[154] = 0
            header[155] = UInt8(ascii: " ")
        }
    }
}
