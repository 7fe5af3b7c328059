// FlatJSON: a small, fast parser for one-level JSON objects (the manifest's per-file lines).
//
// Foundation's decoders cost microseconds per line; a manifest has one line per file, so file lines take
// this path. Anything nested (the header and totals lines) returns nil and goes to JSONDecoder instead.
import SystemKit

enum FlatJSON {
    /// A scalar value. Strings without escapes are slices of the line (no copy).
    enum Value: Equatable {
        case string(ArraySlice<UInt8>)
        case number(UInt64)
        case other
    }

    /// Calls `member` with each key and value of a flat object; false when the text is not a flat JSON object
    /// of strings, non-negative integers, booleans and nulls (then some members may have been reported).
    static func parse(_ line: ArraySlice<UInt8>, _ member: (ArraySlice<UInt8>, Value) -> Void) -> Bool {
        var parser = Parser(bytes: line)
        return parser.object(member)
    }

    private struct Parser {
        let bytes: ArraySlice<UInt8>
        var index: Int

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            index = bytes.startIndex
        }

        mutating func object(_ member: (ArraySlice<UInt8>, Value) -> Void) -> Bool {
            skipSpace()
            guard take(UInt8(ascii: "{")) else { return false }
            skipSpace()
            if take(UInt8(ascii: "}")) { return end() }
            while true {
                skipSpace()
                guard let key = string() else { return false }
                skipSpace()
                guard take(UInt8(ascii: ":")) else { return false }
                skipSpace()
                guard let value = value() else { return false }
                member(key, value)
                skipSpace()
                if take(UInt8(ascii: ",")) { continue }
                guard take(UInt8(ascii: "}")) else { return false }
                return end()
            }
        }

        private mutating func end() -> Bool {
            skipSpace()
            return index == bytes.endIndex
        }

        private mutating func value() -> Value? {
            guard index < bytes.endIndex else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""): return string().map(Value.string)
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return number().map(Value.number)
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            default: return nil  // nested, negative or fractional: not a flat line
            }
        }

        private mutating func literal(_ word: String) -> Value? {
            for byte in word.utf8 {
                guard take(byte) else { return nil }
            }
            return .other
        }

        private mutating func number() -> UInt64? {
            var value: UInt64 = 0
            let start = index
            while index < bytes.endIndex, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                let (times, o1) = value.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times.addingReportingOverflow(UInt64(bytes[index] - UInt8(ascii: "0")))
                if o1 || o2 { return nil }
                value = sum
                index += 1
            }
            if index - start > 1 && bytes[start] == UInt8(ascii: "0") { return nil }
            if index < bytes.endIndex, [UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E")].contains(bytes[index])
            {
                return nil
            }
            return value
        }

        private mutating func string() -> ArraySlice<UInt8>? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            // Fast path: no escapes, so the value is a slice of the line.
            let start = index
            while index < bytes.endIndex {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    index += 1
                    return bytes[start..<(index - 1)]
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                index += 1
            }
            var out = Array(bytes[start..<index])
            while index < bytes.endIndex {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return out[...]
                case UInt8(ascii: "\\"):
                    guard index < bytes.endIndex else { return nil }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                    case UInt8(ascii: "b"): out.append(8)
                    case UInt8(ascii: "f"): out.append(12)
                    case UInt8(ascii: "n"): out.append(10)
                    case UInt8(ascii: "r"): out.append(13)
                    case UInt8(ascii: "t"): out.append(9)
                    case UInt8(ascii: "u"):
                        guard var scalar = hex4() else { return nil }
                        if (0xD800..<0xDC00).contains(scalar) {
                            guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(),
                                (0xDC00..<0xE000).contains(low)
                            else { return nil }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00..<0xE000).contains(scalar) {
                            return nil
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { return nil }
                        out.append(contentsOf: Array(String(Character(unicode)).utf8))
                    default:
                        return nil
                    }
                case 0..<0x20:
                    return nil
                default:
                    out.append(byte)
                }
            }
            return nil
        }

        private mutating func hex4() -> UInt32? {
            guard bytes.endIndex - index >= 4 else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard let digit = Hex.digit(bytes[index]) else { return nil }
                index += 1
                value = value << 4 | UInt32(digit)
            }
            return value
        }

        private mutating func skipSpace() {
            while index < bytes.endIndex, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.endIndex, bytes[index] == byte else { return false }
            index += 1
            return true
        }
    }
}
