// EventLineParser: one line of the event log read into a DeviceEvent, without JSONDecoder.

/// Reads one event-log line (a JSON object: `time` and `type` strings, `app` a string or null or absent,
/// `details` an object of strings; any other key and its value skipped) as `JSONDecoder` decodes a `DeviceEvent`
/// from it, accepting and refusing the same lines, down to what JSONDecoder leaves unchecked in a value it skips
/// (`EventLineParserTests` compares the two on written, hand-made and 8,000 mutated lines; the first key of a pair
/// counts; trailing commas pass). `JSONDecoder`'s generic `Decodable` path cost about 7 µs a line, and commands read the log
/// several times: a `launch` on a device with a few hundred events spent 40% of its time there. Bounded: one
/// pass over the line, nesting of skipped values capped at `maximumDepth`.
struct EventLineParser {
    /// The deepest nesting of arrays and objects in a skipped value (JSONDecoder's own limit is 512).
    static let maximumDepth = 512

    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The event in `line`, or nil when it is not one.
    static func event(_ line: some Collection<UInt8>) -> DeviceEvent? {
        let parse = { (buffer: UnsafeBufferPointer<UInt8>) -> DeviceEvent? in
            var parser = EventLineParser(buffer)
            return parser.event()
        }
        if let done = line.withContiguousStorageIfAvailable(parse) { return done }
        return Array(line).withUnsafeBufferPointer(parse)
    }

    private mutating func event() -> DeviceEvent? {
        // A UTF-8 byte-order mark is skipped, as JSONDecoder skips it.
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        skipSpace()
        guard take(UInt8(ascii: "{")) else { return nil }
        var time: String?, type: String?, app: String??, details: [String: String]?
        var more = openMembers()
        while more {
            guard let key = memberKey() else { return nil }
            // A key given twice: the first value counts, as in JSONDecoder; a later one is only checked.
            switch key {
            case "time" where time == nil:
                guard let value = string() else { return nil }
                time = value
            case "type" where type == nil:
                guard let value = string() else { return nil }
                type = value
            case "app" where app == nil:
                if takeLiteral("null") {
                    app = .some(nil)
                } else {
                    guard let value = string() else { return nil }
                    app = .some(value)
                }
            case "details" where details == nil:
                guard let value = stringObject() else { return nil }
                details = value
            default:
                guard skipValue(depth: 0) else { return nil }
            }
            guard let next = nextMember(close: UInt8(ascii: "}")) else { return nil }
            more = next
        }
        skipSpace()
        guard index == bytes.count, let time, let type, let details else { return nil }
        return DeviceEvent(recorded: time, type: type, app: app ?? nil, details: details)
    }

    // MARK: - Values

    /// An object whose values are all strings (of a key given twice, the first value counts).
    private mutating func stringObject() -> [String: String]? {
        guard take(UInt8(ascii: "{")) else { return nil }
        var result: [String: String] = [:]
        var more = openMembers()
        while more {
            guard let key = memberKey(), let value = string() else { return nil }
            if result[key] == nil { result[key] = value }
            guard let next = nextMember(close: UInt8(ascii: "}")) else { return nil }
            more = next
        }
        return result
    }

    /// After `{` or `[`: whether members follow (false: the container closed at once).
    private mutating func openMembers(close: UInt8 = UInt8(ascii: "}")) -> Bool {
        skipSpace()
        return !take(close)
    }

    /// A member's key and its colon, with the spaces around them.
    private mutating func memberKey() -> String? {
        skipSpace()
        guard let key = string() else { return nil }
        skipSpace()
        guard take(UInt8(ascii: ":")) else { return nil }
        skipSpace()
        return key
    }

    /// After a member: true when another follows (a comma), false when the container closes with `close` (also
    /// after a trailing comma, which JSONDecoder accepts), nil for anything else.
    private mutating func nextMember(close: UInt8) -> Bool? {
        skipSpace()
        if take(UInt8(ascii: ",")) {
            skipSpace()
            return take(close) ? false : true
        }
        return take(close) ? false : nil
    }

    /// A string: its escapes decoded, its bytes valid UTF-8, no raw control characters.
    private mutating func string() -> String? {
        guard take(UInt8(ascii: "\"")) else { return nil }
        let start = index
        // The common case: no escape, ASCII or UTF-8 as it is.
        var ascii = true
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") {
            guard bytes[index] >= 0x20 else { return nil }
            if bytes[index] >= 0x80 { ascii = false }
            index += 1
        }
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "\"") {
            let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
            index += 1
            // ASCII needs no validation (most of a log is); anything else must be UTF-8.
            return ascii ? String(decoding: text, as: UTF8.self) : String(validating: text, as: UTF8.self)
        }
        var text = Array(bytes[start..<index])
        while bytes[index] == UInt8(ascii: "\\") {
            index += 1
            guard index < bytes.count else { return nil }
            let escaped = bytes[index]
            index += 1
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(escaped)
            case UInt8(ascii: "b"): text.append(0x08)
            case UInt8(ascii: "f"): text.append(0x0C)
            case UInt8(ascii: "n"): text.append(0x0A)
            case UInt8(ascii: "r"): text.append(0x0D)
            case UInt8(ascii: "t"): text.append(0x09)
            case UInt8(ascii: "u"):
                guard let scalar = unicodeEscape() else { return nil }
                text.append(contentsOf: String(Character(scalar)).utf8)
            default: return nil
            }
            while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\") {
                guard bytes[index] >= 0x20 else { return nil }
                text.append(bytes[index])
                index += 1
            }
            guard index < bytes.count else { return nil }
        }
        index += 1  // the closing quote
        return String(validating: text, as: UTF8.self)
    }

    /// The scalar of `XXXX` after `\u` (a surrogate pair: both escapes); nil for a lone surrogate.
    private mutating func unicodeEscape() -> Unicode.Scalar? {
        guard let high = hexQuad() else { return nil }
        if (0xDC00...0xDFFF).contains(high) { return nil }
        guard (0xD800...0xDBFF).contains(high) else { return Unicode.Scalar(high) }
        guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hexQuad(), (0xDC00...0xDFFF).contains(low)
        else { return nil }
        return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    }

    private mutating func hexQuad() -> UInt32? {
        guard bytes.count - index >= 4 else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    /// Skips any JSON value, checking its syntax.
    private mutating func skipValue(depth: Int) -> Bool {
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return skipString()
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            guard depth < Self.maximumDepth else { return false }
            let object = bytes[index] == UInt8(ascii: "{")
            let close = object ? UInt8(ascii: "}") : UInt8(ascii: "]")
            index += 1
            var more = openMembers(close: close)
            while more {
                if object {
                    skipSpace()
                    guard skipString() else { return false }
                    skipSpace()
                    guard take(UInt8(ascii: ":")) else { return false }
                    skipSpace()
                }
                guard skipValue(depth: depth + 1) else { return false }
                guard let next = nextMember(close: close) else { return false }
                more = next
            }
            return true
        case UInt8(ascii: "t"): return takeLiteral("true")
        case UInt8(ascii: "f"): return takeLiteral("false")
        case UInt8(ascii: "n"): return takeLiteral("null")
        default: return skipNumber()
        }
    }

    /// A string JSONDecoder does not decode, as it skips one: to the first quote not after a backslash, a `\u`
    /// taking the four bytes after it, none of which may be a quote (it checks escapes, control characters and UTF-8
    /// only in what it decodes).
    private mutating func skipString() -> Bool {
        guard take(UInt8(ascii: "\"")) else { return false }
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                index += 1
                return true
            case UInt8(ascii: "\\"):
                index += 1
                guard take(UInt8(ascii: "u")) else {
                    index += 1
                    continue
                }
                guard bytes.count - index >= 4 else { return false }
                for _ in 0..<4 {
                    guard bytes[index] != UInt8(ascii: "\"") else { return false }
                    index += 1
                }
            default: index += 1
            }
        }
        return false
    }

    /// A number as JSONDecoder skips one it does not decode: a `-` or a digit, then digits, `.`, `e`, `E`, `+`
    /// and `-` (it checks a number's form only when it decodes it: `01` and `1.` pass here too).
    private mutating func skipNumber() -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "-") || Self.isDigit(bytes[index]) else { return false }
        index += 1
        while index < bytes.count, Self.isDigit(bytes[index]) || Self.numberPunctuation.contains(bytes[index]) {
            index += 1
        }
        return true
    }

    private static let numberPunctuation: [UInt8] = Array(".eE+-".utf8)

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    // MARK: - Bytes

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func takeLiteral(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] { return false }
        index += count
        return true
    }
}
