// NumberText: the one number formatter (fixed decimals, zero-padded integers, decimal digits into a byte buffer).
import CSupport

/// Numbers as text without Foundation's `String(format:)`, whose `CVarArg` casts cost a scan of every protocol
/// conformance in the binary at their first use in a process (0.3 ms of a backup's summary, profiled).
public enum NumberText {
    /// `value` with `places` (0 to 17) digits after the point: what `String(format: "%.<places>f", value)` gives.
    public static func fixed(_ value: Double, places: Int) -> String {
        let digits = Int32(min(max(places, 0), 17))
        // A Double's integer part has at most 309 digits: room for it, a sign, the point and 17 decimals.
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 352) { buffer in
            let count = Int(csupport_format_fixed(buffer.baseAddress!, buffer.count, value, digits))
            let length = min(max(count, 0), buffer.count - 1)
            return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress!, count: length), as: UTF8.self)
        }
    }

    /// `value` in `radix` (lowercase), left-padded with zeros to `width` digits: `%02d`, `%04x` and the like.
    public static func padded<Value: BinaryInteger>(_ value: Value, width: Int, radix: Int = 10) -> String {
        let digits = String(value.magnitude, radix: radix)
        let sign = value < 0 ? "-" : ""
        return sign + String(repeating: "0", count: max(0, width - digits.count - sign.count)) + digits
    }

    /// Appends `value` in decimal digits to a byte buffer (JSON numbers, pax records and sparse maps).
    public static func appendDecimal(_ value: UInt64, to out: inout [UInt8]) {
        if value == 0 {
            out.append(UInt8(ascii: "0"))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var start = MemoryLayout.size(ofValue: digits)
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            // From the last digit back, then one append.
            while rest > 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buffer[start...]))
        }
    }
}
