// Hex: the one hex encoder and decoder (digests, journal names, device tokens, manifest fields).

/// Bytes as lowercase hex text, and hex text (either case) back to bytes.
public enum Hex {
    /// `bytes` as lowercase hex, two digits a byte.
    @inlinable
    public static func encode<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(character(byte >> 4))
            text.append(character(byte & 0x0F))
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends `bytes` as lowercase hex to `text` (a byte buffer being filled: the manifest's lines).
    @inlinable
    public static func append<Bytes: Sequence<UInt8>>(_ bytes: Bytes, to text: inout [UInt8]) {
        for byte in bytes {
            text.append(character(byte >> 4))
            text.append(character(byte & 0x0F))
        }
    }

    /// The value of one hex digit (either case); nil for any other byte.
    @inlinable
    public static func digit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The bytes of an even-length hex text (either case; empty gives none); nil when malformed.
    @inlinable
    public static func decode<Text: Collection<UInt8>>(_ text: Text) -> [UInt8]? {
        guard text.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count / 2)
        var high: UInt8 = 0
        var even = true
        for byte in text {
            guard let value = digit(byte) else { return nil }
            if even { high = value } else { bytes.append(high << 4 | value) }
            even.toggle()
        }
        return bytes
    }

    /// The lowercase digit for `value` (0...15).
    @inlinable
    public static func character(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}
