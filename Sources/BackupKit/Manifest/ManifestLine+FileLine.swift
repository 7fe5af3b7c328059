// ManifestLine+FileLine: the file line exactly as devicectl writes it, read without the general parser.
//
// A manifest has one file line per archived file, so restore and verify read tens of thousands of them.
// `{"kind":"file","path":"<no escapes>","size":N,"sha256":"<64 hex>"}` (the writer's key order, no spaces) is
// matched byte by byte; any other spelling returns nil and goes to the general parser, which gives the same
// answer for this form.
import Glibc
import SystemKit

extension ManifestLine {
    private static let linePrefix = Array(#"{"kind":"file","path":""#.utf8)
    private static let sizePart = Array(#"","size":"#.utf8)
    private static let shaPart = Array(#","sha256":""#.utf8)
    private static let lineEnd = Array(#""}"#.utf8)

    /// The file line in devicectl's own spelling, or nil for anything else.
    static func devicectlFileLine(_ line: ArraySlice<UInt8>) -> ManifestLine? {
        withDevicectlFileFields(line) { .file(path: Array($0), size: $1, digest: Array($2)) }
    }

    /// Reads the file line in devicectl's own spelling in place: `body` gets the path (inside `line`), the size and
    /// the digest's 32 bytes (valid only during the call). Nil, without calling `body`, for any other spelling.
    static func withDevicectlFileFields<Result>(
        _ line: ArraySlice<UInt8>,
        _ body: (UnsafeBufferPointer<UInt8>, UInt64, UnsafeBufferPointer<UInt8>) throws -> Result
    ) rethrows -> Result? {
        try line.withUnsafeBufferPointer { buffer -> Result? in
            guard let start = buffer.baseAddress else { return nil }
            let end = start + buffer.count
            var cursor = start
            guard take(linePrefix, at: &cursor, end: end) else { return nil }
            // The path runs to its closing quote, with no byte that JSON escapes before it (`JSONText.plainLength`):
            // an escape (`\`) or a control character leaves the line to the general parser.
            let pathStart = cursor
            cursor += JSONText.plainLength(UnsafeBufferPointer(start: cursor, count: end - cursor))
            guard cursor < end, cursor.pointee == UInt8(ascii: "\"") else { return nil }
            let pathEnd = cursor
            guard take(sizePart, at: &cursor, end: end) else { return nil }
            let digitsStart = cursor
            var size: UInt64 = 0
            while cursor < end, cursor.pointee &- UInt8(ascii: "0") < 10 {
                let (times, o1) = size.multipliedReportingOverflow(by: 10)
                let (sum, o2) = times.addingReportingOverflow(UInt64(cursor.pointee &- UInt8(ascii: "0")))
                if o1 || o2 { return nil }
                size = sum
                cursor += 1
            }
            let digits = cursor - digitsStart
            guard digits > 0, digits == 1 || digitsStart.pointee != UInt8(ascii: "0") else { return nil }
            guard take(shaPart, at: &cursor, end: end), end - cursor == 64 + lineEnd.count else { return nil }
            var digest: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            let invalid = withUnsafeMutableBytes(of: &digest) { out -> UInt8 in
                var invalid: UInt8 = 0
                for position in 0..<32 {
                    let high = cursor[2 * position], low = cursor[2 * position + 1]
                    invalid |= notHexDigit(high) | notHexDigit(low)
                    out[position] = hexValue(high) << 4 | hexValue(low)
                }
                return invalid
            }
            cursor += 64
            guard invalid == 0, take(lineEnd, at: &cursor, end: end) else { return nil }
            let path = UnsafeBufferPointer(start: pathStart, count: pathEnd - pathStart)
            return try withUnsafeBytes(of: &digest) { try body(path, size, $0.bindMemory(to: UInt8.self)) }
        }
    }

    /// 1 when `byte` is not a hex digit (either case), else 0; without a branch (the digits of a digest are random,
    /// so a branch on each was mispredicted half the time: most of this parser's time).
    @inline(__always)
    private static func notHexDigit(_ byte: UInt8) -> UInt8 {
        let decimal: UInt8 = byte &- UInt8(ascii: "0") < 10 ? 1 : 0
        let letter: UInt8 = (byte | 0x20) &- UInt8(ascii: "a") < 6 ? 1 : 0
        return 1 &- (decimal | letter)
    }

    /// The value of hex digit `byte` (either case; meaningless for anything else): its low four bits, plus 9 for a
    /// letter (bit 6 set).
    @inline(__always)
    private static func hexValue(_ byte: UInt8) -> UInt8 {
        (byte & 0x0F) &+ (byte >> 6) &* 9
    }

    /// Whether `part` comes next; moves past it when it does.
    private static func take(_ part: [UInt8], at cursor: inout UnsafePointer<UInt8>, end: UnsafePointer<UInt8>) -> Bool {
        guard end - cursor >= part.count else { return false }
        let same = part.withUnsafeBufferPointer { memcmp($0.baseAddress!, cursor, part.count) == 0 }
        if same { cursor += part.count }
        return same
    }
}
