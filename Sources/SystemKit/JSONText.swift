// JSONText: the one JSON writer for devicectl's own records (manifest lines, event log lines), without Foundation.

/// Appends JSON to a byte buffer exactly as `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes` writes the
/// same values (the tests compare them): strings escape `"`, `\`, `\b`, `\f`, `\n`, `\r`, `\t` and other control
/// characters as `\u00xx`, and pass everything else through (valid UTF-8, `/`, DEL, U+2028); object keys are sorted
/// by their UTF-8 bytes; a Double is written as its shortest form, without a trailing `.0`. JSONEncoder's first use in
/// a process instantiates its generic containers for each type and looks up their conformances: about 1 ms of a
/// backup of an empty device, where the manifest's header line was its only use. The manifest's per-file lines use the
/// same functions on their hot path.
public enum JSONText {
    /// Appends `bytes` (valid UTF-8) as a quoted JSON string.
    public static func appendString(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var start = 0
        var index = 0
        while true {
            index += plainLength(UnsafeBufferPointer(rebasing: bytes[index...]))
            guard index < bytes.count else { break }
            let byte = bytes[index]
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
            index += 1
            start = index
            out.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): out.append(byte)
            case 0x08: out.append(UInt8(ascii: "b"))
            case 0x0C: out.append(UInt8(ascii: "f"))
            case 0x0A: out.append(UInt8(ascii: "n"))
            case 0x0D: out.append(UInt8(ascii: "r"))
            case 0x09: out.append(UInt8(ascii: "t"))
            default:
                out.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                Hex.append(CollectionOfOne(byte), to: &out)
            }
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        out.append(UInt8(ascii: "\""))
    }

    /// How many of `bytes`' leading bytes a JSON string holds as they are: up to the first one it escapes (a control
    /// character below 0x20, `"` or `\`), or all of them. Eight bytes at a time (a word tested at once for any such
    /// byte), then byte by byte from the word that holds one: paths are long and almost never hold one, and a loop over
    /// every byte was 78% of the time reading a manifest's file line took.
    @inlinable
    public static func plainLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        guard let start = bytes.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(start)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var index = 0
        while bytes.count - index >= 8 {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            // Each test is non-zero exactly when some byte of the word is below 0x20, is `"` (0x22), is `\` (0x5C)
            // (which byte, the bits do not say reliably: the scan below finds it).
            let quotes = word ^ (ones &* 0x22)
            let backslashes = word ^ (ones &* 0x5C)
            let control = (word &- ones &* 0x20) & ~word
            let quote = (quotes &- ones) & ~quotes
            let backslash = (backslashes &- ones) & ~backslashes
            if (control | quote | backslash) & highs != 0 { break }
            index += 8
        }
        while index < bytes.count {
            let byte = start[index]
            if byte < 0x20 || byte == 0x22 || byte == 0x5C { return index }
            index += 1
        }
        return index
    }

    /// Appends `text` as a quoted JSON string.
    public static func appendString(_ text: String, to out: inout [UInt8]) {
        var text = text
        text.withUTF8 { appendString($0, to: &out) }
    }

    /// Appends `value` in decimal.
    public static func appendNumber(_ value: UInt64, to out: inout [UInt8]) {
        NumberText.appendDecimal(value, to: &out)
    }

    /// Appends `value` in decimal.
    public static func appendNumber(_ value: Int, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        appendNumber(UInt64(value.magnitude), to: &out)
    }

    /// Appends a finite `value` as JSONEncoder writes it (`86400`, `0.5`, `1e-07`, `1.2345678901234568e+16`); false,
    /// with nothing appended, for NaN and the infinities, which JSON cannot hold (JSONEncoder throws).
    public static func appendNumber(_ value: Double, to out: inout [UInt8]) -> Bool {
        guard value.isFinite else { return false }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        out.append(contentsOf: text.utf8)
        return true
    }

    /// Appends `true` or `false`.
    public static func appendBool(_ value: Bool, to out: inout [UInt8]) {
        out.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// Appends `null`.
    public static func appendNull(to out: inout [UInt8]) {
        out.append(contentsOf: "null".utf8)
    }

    /// Appends `bytes` as quoted lowercase hex.
    @inlinable
    public static func appendHex<Bytes: Sequence<UInt8>>(_ bytes: Bytes, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        Hex.append(bytes, to: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// Appends an object: each field's key, then what its `value` appends, in the keys' UTF-8 byte order (the order
    /// `.sortedKeys` gives), whatever order they are listed in. Keys are distinct.
    public static func appendObject(_ fields: [(key: String, value: (inout [UInt8]) -> Void)], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "{"))
        let sorted = fields.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        for (index, field) in sorted.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendString(field.key, to: &out)
            out.append(UInt8(ascii: ":"))
            field.value(&out)
        }
        out.append(UInt8(ascii: "}"))
    }

    /// Appends an array of what `element` appends for each of `values`.
    public static func appendArray<Value>(
        _ values: [Value], to out: inout [UInt8], _ element: (Value, inout [UInt8]) -> Void
    ) {
        out.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            element(value, &out)
        }
        out.append(UInt8(ascii: "]"))
    }
}
