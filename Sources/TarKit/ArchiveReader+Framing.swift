// ArchiveReader+Framing: audits the tar stream's framing, the bytes libarchive skips without looking.
//
// A tar stream is headers (covered by their checksum), pax/GNU extension bodies, member data and zero padding
// to 512-byte blocks, then an end-of-archive mark of zero blocks and zero padding to the record size. libarchive
// never reads the padding, and accepts a stream that simply stops at a member boundary. This audit follows
// the same framing rules as libarchive 3.6's tar reader and fails on any non-zero padding byte, any non-zero
// byte after the end mark, and a stream without an end mark, so a flipped byte or a truncation anywhere in
// the stream is caught (headers by their checksum, data by the manifest's digests, framing here).
import Glibc

extension ArchiveReader {
    /// The framing state machine, fed every byte of the uncompressed tar stream in order.
    struct FramingAudit {
        var enabled = true
        private enum State {
            /// Collecting a 512-byte header.
            case header
            /// Skipping member data; then `padding` zero bytes.
            case body(remaining: UInt64, padding: Int)
            /// Collecting a pax extended header body (to learn a `size` override); then padding.
            case paxBody(remaining: UInt64, padding: Int)
            /// Zero bytes.
            case padding(remaining: Int)
            /// GNU old sparse extension blocks follow the header; then the data.
            case sparseExtension(body: UInt64)
            /// Member data that starts with a GNU sparse 1.0 map: its first line (the entry count) is checked.
            case sparseMap(remaining: UInt64, padding: Int)
            /// A ustar hard link with a non-zero size: libarchive looks at the next block to decide whether
            /// data follows (a valid header next: no data).
            case hardLinkBody(size: UInt64)
            /// After the end-of-archive mark: zeros only.
            case end
        }

        private enum Format { case unknown, oldTar, ustar, gnu, pax }

        private var state = State.header
        private var block: [UInt8] = []
        private var paxBody: [UInt8] = []
        private var pendingSize: UInt64?
        /// The body being collected in `paxBody` is a GNU long name ('L') or long link name ('K'), not pax records.
        private var longNameField: String?
        private var format = Format.unknown
        private(set) var sawEnd = false
        /// Where the end-of-archive mark starts in the tar stream (its first zero block).
        private var endOffset: UInt64 = 0
        /// pax keys libarchive does not interpret (a flipped byte in a key name lands here), first few kept.
        private(set) var unknownPaxKeys: [String] = []
        private(set) var unknownPaxKeyCount = 0
        /// The pending pax header announced a GNU sparse 1.0 map at the start of the member's data.
        private var pendingSparseMap = false
        private var sparseMapLine: [UInt8] = []
        private var sparseExtensionBlocks = 0
        private var bytesAfterEnd: UInt64 = 0

        /// libarchive keeps a sparse map in memory, one allocation per entry: more are refused.
        static let maxSparseEntries = 100_000
        /// Old GNU sparse extension blocks per member (21 entries each).
        static let maxSparseExtensionBlocks = 4096
        /// Zero padding accepted after the end-of-archive mark (GNU tar pads to its record size).
        static let maxBytesAfterEnd: UInt64 = 64 << 20

        init() {
            block.reserveCapacity(512)
        }

        /// Audits `bytes`, which start at `offset` in the tar stream.
        mutating func consume(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
            guard enabled else { return }
            var index = 0
            while index < bytes.count {
                switch state {
                case .header, .sparseExtension, .hardLinkBody:
                    let take = min(512 - block.count, bytes.count - index)
                    block.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + take)]))
                    index += take
                    if block.count == 512 {
                        try completeBlock(at: offset + UInt64(index) - 512)
                        block.removeAll(keepingCapacity: true)
                    }
                case .body(let remaining, let padding):
                    let take = Int(min(remaining, UInt64(bytes.count - index)))
                    index += take
                    state =
                        remaining == UInt64(take)
                        ? after(padding: padding) : .body(remaining: remaining - UInt64(take), padding: padding)
                case .paxBody(let remaining, let padding):
                    let take = Int(min(remaining, UInt64(bytes.count - index)))
                    if paxBody.count < 2 << 20 {
                        paxBody.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[index..<(index + take)]))
                    }
                    index += take
                    if remaining == UInt64(take), let field = longNameField {
                        // libarchive takes the name up to its first NUL: bytes after it would be hidden.
                        let end = paxBody.firstIndex(of: 0) ?? paxBody.endIndex
                        if let position = paxBody[end...].firstIndex(where: { $0 != 0 }) {
                            throw ArchiveReaderError.damaged(
                                offset: offset + UInt64(index) - UInt64(paxBody.count) + UInt64(position),
                                reason: "a NUL byte inside the GNU \(field)")
                        }
                        longNameField = nil
                        paxBody.removeAll(keepingCapacity: true)
                        state = after(padding: padding)
                    } else if remaining == UInt64(take) {
                        let (size, unknown, nul, sparseMap) = FramingAudit.parsePax(paxBody)
                        if sparseMap { pendingSparseMap = true }
                        if let nul {
                            throw ArchiveReaderError.damaged(
                                offset: offset + UInt64(index), reason: "a NUL byte inside the pax '\(nul)' value")
                        }
                        pendingSize = size ?? pendingSize
                        unknownPaxKeyCount += unknown.count
                        for key in unknown where unknownPaxKeys.count < 5 { unknownPaxKeys.append(key) }
                        paxBody.removeAll(keepingCapacity: true)
                        state = after(padding: padding)
                    } else {
                        state = .paxBody(remaining: remaining - UInt64(take), padding: padding)
                    }
                case .padding(let remaining):
                    let take = min(remaining, bytes.count - index)
                    if let position = FramingAudit.firstNonZero(bytes, index..<(index + take)) {
                        throw ArchiveReaderError.damaged(
                            offset: offset + UInt64(position), reason: "non-zero byte in the padding after a member")
                    }
                    index += take
                    state = remaining == take ? .header : .padding(remaining: remaining - take)
                case .sparseMap(let remaining, let padding):
                    let take = Int(min(remaining, UInt64(bytes.count - index)))
                    for position in index..<(index + take) where sparseMapLine.last != 0x0A {
                        sparseMapLine.append(bytes[position])
                    }
                    index += take
                    let rest = remaining - UInt64(take)
                    if sparseMapLine.last == 0x0A || sparseMapLine.count > 32 || rest == 0 {
                        let digits = String(decoding: sparseMapLine.dropLast(), as: UTF8.self)
                        guard let count = Int(digits), count <= FramingAudit.maxSparseEntries else {
                            throw ArchiveReaderError.damaged(
                                offset: offset + UInt64(index),
                                reason:
                                    "a GNU sparse map with more than \(FramingAudit.maxSparseEntries) entries (or no count)"
                            )
                        }
                        state = rest > 0 ? .body(remaining: rest, padding: padding) : after(padding: padding)
                    } else {
                        state = .sparseMap(remaining: rest, padding: padding)
                    }
                case .end:
                    bytesAfterEnd += UInt64(bytes.count - index)
                    if bytesAfterEnd > FramingAudit.maxBytesAfterEnd {
                        throw ArchiveReaderError.damaged(
                            offset: offset + UInt64(index),
                            reason: "more than \(FramingAudit.maxBytesAfterEnd >> 20) MiB after the end-of-archive mark"
                        )
                    }
                    if let position = FramingAudit.firstNonZero(bytes, index..<bytes.count) {
                        throw ArchiveReaderError.damaged(
                            offset: offset + UInt64(position), reason: "non-zero byte after the end-of-archive mark")
                    }
                    index = bytes.count
                }
            }
        }

        /// The member data that may be passed over unread from here: what is left of the current member's data
        /// (its padding is read and checked), 0 anywhere else (headers, pax and GNU bodies, a sparse map's first
        /// line, the bytes after the end mark: everything the audit looks at). Always 0 when the audit is off.
        var skippableBytes: UInt64 {
            guard enabled, block.isEmpty, case .body(let remaining, _) = state else { return 0 }
            return remaining
        }

        /// Passes over `count` bytes of member data unread (at most `skippableBytes`).
        mutating func skip(_ count: UInt64) {
            guard case .body(let remaining, let padding) = state, count <= remaining else {
                preconditionFailure("the framing audit passed over \(count) bytes outside a member's data")
            }
            state = count == remaining ? after(padding: padding) : .body(remaining: remaining - count, padding: padding)
        }

        /// At the end of the stream: it must have had its end-of-archive mark and stopped on a block boundary.
        func finish(at offset: UInt64) throws {
            guard enabled else { return }
            guard sawEnd else {
                throw ArchiveReaderError.damaged(
                    offset: offset, reason: "no end-of-archive mark: the archive is truncated")
            }
            // The mark is two zero blocks (POSIX; every tar writer writes both); libarchive accepts one.
            guard offset - endOffset >= 1024 else {
                throw ArchiveReaderError.damaged(
                    offset: offset, reason: "the end-of-archive mark is cut short (one zero block of two): truncated")
            }
        }

        private func after(padding: Int) -> State {
            padding > 0 ? .padding(remaining: padding) : .header
        }

        private static func padding(_ size: UInt64) -> Int {
            Int((512 - size % 512) % 512)
        }

        // MARK: - Headers

        private mutating func completeBlock(at offset: UInt64) throws {
            switch state {
            case .sparseExtension(let body):
                sparseExtensionBlocks += 1
                if sparseExtensionBlocks > FramingAudit.maxSparseExtensionBlocks {
                    throw ArchiveReaderError.damaged(
                        offset: offset,
                        reason: "a GNU sparse map longer than \(FramingAudit.maxSparseExtensionBlocks) blocks")
                }
                // isextended flag at byte 504 of each extension block.
                if block[504] == 0 {
                    state = body > 0 ? .body(remaining: body, padding: FramingAudit.padding(body)) : .header
                }
                return
            case .hardLinkBody(let size):
                if FramingAudit.looksLikeHeader(block) {
                    state = .header
                    try header(at: offset)
                } else {
                    // The block was data: account for it and skip the rest.
                    let rest = size > 512 ? size - 512 : 0
                    if size < 512 {
                        for position in Int(size)..<512 where block[position] != 0 {
                            throw ArchiveReaderError.damaged(
                                offset: offset + UInt64(position), reason: "non-zero byte in the padding after a member"
                            )
                        }
                    }
                    state = rest > 0 ? .body(remaining: rest, padding: FramingAudit.padding(size)) : .header
                }
                return
            default:
                try header(at: offset)
            }
        }

        private mutating func header(at offset: UInt64) throws {
            if block.withUnsafeBytes({ FramingAudit.firstNonZero($0, 0..<$0.count) }) == nil {
                sawEnd = true
                endOffset = offset
                state = .end
                return
            }
            let gnuHeader = FramingAudit.hasMagic(block, FramingAudit.gnuMagic)
            // In GNU headers bytes 345..<500 hold times and sparse data, not a name prefix.
            if let (field, position) = FramingAudit.nulInsideName(block, checkPrefix: !gnuHeader) {
                throw ArchiveReaderError.damaged(
                    offset: offset + UInt64(position), reason: "a NUL byte inside the header's \(field)")
            }
            let type = block[156]
            let size = FramingAudit.number(block[124..<136])
            switch type {
            case UInt8(ascii: "x"), UInt8(ascii: "X"):
                format = .pax
                state = size > 0 ? .paxBody(remaining: size, padding: FramingAudit.padding(size)) : .header
                return
            case UInt8(ascii: "g"), UInt8(ascii: "A"):
                format = .pax
                state = size > 0 ? .body(remaining: size, padding: FramingAudit.padding(size)) : .header
                return
            case UInt8(ascii: "L"), UInt8(ascii: "K"):
                longNameField = type == UInt8(ascii: "L") ? "long name" : "long link name"
                state = size > 0 ? .paxBody(remaining: size, padding: FramingAudit.padding(size)) : .header
                if size == 0 { longNameField = nil }
                return
            case UInt8(ascii: "V"):
                state = .header
                return
            default:
                break
            }
            if gnuHeader {
                format = .gnu
            } else if FramingAudit.hasMagic(block, FramingAudit.ustarMagic) {
                if format != .pax { format = .ustar }
            } else if format != .pax {
                format = .oldTar
            }
            let override = pendingSize
            pendingSize = nil
            var body: UInt64
            switch type {
            case UInt8(ascii: "1"):
                body = override ?? size
                if body > 0 && override == nil {
                    switch format {
                    case .pax: break
                    case .oldTar, .gnu, .unknown: body = 0
                    case .ustar:
                        state = .hardLinkBody(size: body)
                        return
                    }
                }
            case UInt8(ascii: "2"), UInt8(ascii: "3"), UInt8(ascii: "4"), UInt8(ascii: "5"), UInt8(ascii: "6"):
                body = override ?? 0
            case UInt8(ascii: "S") where format == .gnu && block[482] != 0 && block[386] != 0:
                // libarchive reads extension blocks only when the header's first sparse entry is set.
                sparseExtensionBlocks = 0
                state = .sparseExtension(body: size)
                return
            default:
                body = override ?? size
            }
            let sparseMap = pendingSparseMap
            pendingSparseMap = false
            if sparseMap && body > 0 {
                sparseMapLine.removeAll(keepingCapacity: true)
                state = .sparseMap(remaining: body, padding: FramingAudit.padding(body))
                return
            }
            state = body > 0 ? .body(remaining: body, padding: FramingAudit.padding(body)) : .header
        }

        /// The first name field (name, link name, ustar prefix) with a non-zero byte after its NUL terminator.
        private static let nameFields = [("name", 0, 100), ("link name", 157, 257), ("prefix", 345, 500)]

        private static func nulInsideName(_ block: [UInt8], checkPrefix: Bool) -> (String, Int)? {
            block.withUnsafeBytes { bytes -> (String, Int)? in
                for (field, start, end) in nameFields {
                    if start == 345 && !checkPrefix { continue }
                    // The name runs to its first NUL (memchr: three fields in every header); zeros only after it.
                    let nul = memchr(bytes.baseAddress! + start, 0, end - start)
                    let index = nul.map { UnsafeRawPointer($0) - bytes.baseAddress! } ?? end
                    if let position = firstNonZero(bytes, index..<end) { return (field, position) }
                }
                return nil
            }
        }

        /// GNU's magic and version (`ustar  \0`), POSIX's magic (`ustar\0`) and without its NUL (`ustar`), at byte 257.
        private static let gnuMagic = Array("ustar  \0".utf8)
        private static let posixMagic = Array("ustar\0".utf8)
        private static let ustarMagic = Array("ustar".utf8)

        /// Whether the header `block` (512 bytes) holds `magic` at byte 257.
        private static func hasMagic(_ block: [UInt8], _ magic: [UInt8]) -> Bool {
            block.withUnsafeBytes { header in
                magic.withUnsafeBytes { memcmp(header.baseAddress! + 257, $0.baseAddress!, $0.count) == 0 }
            }
        }

        /// The offset of the first non-zero byte of `bytes[range]`, or nil: eight bytes at a time (every header's
        /// name fields and every member's padding are scanned).
        static func firstNonZero(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> Int? {
            var index = range.lowerBound
            while index + 8 <= range.upperBound, bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) == 0 {
                index += 8
            }
            while index < range.upperBound {
                if bytes[index] != 0 { return index }
                index += 1
            }
            return nil
        }

        /// A header libarchive's tar bidder would rate above 50: valid checksum and a ustar or GNU magic.
        private static func looksLikeHeader(_ block: [UInt8]) -> Bool {
            let stored = number(block[148..<156])
            var sum: UInt64 = 0
            for (index, byte) in block.enumerated() { sum += (148..<156).contains(index) ? 32 : UInt64(byte) }
            return stored == sum && (hasMagic(block, posixMagic) || hasMagic(block, gnuMagic))
        }

        /// A numeric header field as libarchive reads it: base-256 when the high bit is set, else octal after
        /// leading spaces. Negative values count as 0 (libarchive warns, which the reader treats as fatal).
        static func number(_ field: ArraySlice<UInt8>) -> UInt64 {
            guard let first = field.first else { return 0 }
            if first & 0x80 != 0 {
                if first & 0x40 != 0 { return 0 }
                var value = UInt64(first & 0x3F)
                for byte in field.dropFirst() {
                    if value > UInt64.max >> 8 { return UInt64.max }
                    value = value << 8 | UInt64(byte)
                }
                return value
            }
            var value: UInt64 = 0
            var digits = field.drop { $0 == 0x20 || $0 == 0x09 }[...]
            while let byte = digits.first, byte >= 0x30, byte <= 0x37 {
                if value > UInt64.max >> 3 { return UInt64.max }
                value = value << 3 | UInt64(byte - 0x30)
                digits = digits.dropFirst()
            }
            return value
        }

        /// The last `size` record of a pax extended header body, the keys libarchive would ignore, and the first
        /// text key whose value holds a NUL (libarchive would silently cut the name there).
        static func parsePax(_ body: [UInt8]) -> (size: UInt64?, unknown: [String], nul: String?, sparseMap: Bool) {
            var size: UInt64?
            var unknown: [String] = []
            var nul: String?
            var sparseMap = false
            var rest = body[...]
            while !rest.isEmpty {
                guard let space = rest.firstIndex(of: 0x20),
                    let length = Int(String(decoding: rest[rest.startIndex..<space], as: UTF8.self)),
                    length > 0, length <= rest.count, space + 1 <= rest.startIndex + length - 1
                else { break }
                let record = rest[(space + 1)..<(rest.startIndex + length - 1)]
                if let equals = record.firstIndex(of: UInt8(ascii: "=")) {
                    let keyBytes = record[record.startIndex..<equals]
                    if keyBytes.elementsEqual(mtimeKey) {  // every member of a devicectl backup has one
                        rest = rest[(rest.startIndex + length)...]
                        continue
                    }
                    let key = String(decoding: keyBytes, as: UTF8.self)
                    let value = record[(equals + 1)...]
                    if key == "size" { size = UInt64(String(decoding: value, as: UTF8.self)) }
                    if key == "GNU.sparse.major" && value.elementsEqual("1".utf8) { sparseMap = true }
                    if !knownPaxKey(key) { unknown.append(key) }
                    if textPaxKeys.contains(key), record[(equals + 1)...].contains(0), nul == nil { nul = key }
                }
                rest = rest[(rest.startIndex + length)...]
            }
            return (size, unknown, nul, sparseMap)
        }

        /// The keys libarchive 3.6's tar reader interprets.
        static func knownPaxKey(_ key: String) -> Bool {
            if knownPaxKeys.contains(key) { return true }
            return ["GNU.sparse.", "LIBARCHIVE.xattr.", "SCHILY.xattr.", "SCHILY.acl."].contains { key.hasPrefix($0) }
        }

        private static let mtimeKey = Array("mtime".utf8)

        /// Keys whose values are names (a NUL inside one hides the rest of the name from libarchive).
        static let textPaxKeys: Set<String> = ["path", "linkpath", "uname", "gname", "GNU.sparse.name"]

        static let knownPaxKeys: Set<String> = [
            "path", "linkpath", "size", "uid", "gid", "uname", "gname", "mtime", "atime", "ctime", "hdrcharset",
            "charset",
            "comment", "LIBARCHIVE.creationtime", "LIBARCHIVE.symlinktype", "SCHILY.devmajor", "SCHILY.devminor",
            "SCHILY.fflags", "SCHILY.dev", "SCHILY.ino", "SCHILY.nlink", "SCHILY.realsize", "SUN.holesdata",
        ]
    }
}
