// ArchiveFormat: how list prints modes and times (counts and sizes come from ProgressBar).
import BackupKit
import DeviceKit
import Foundation
import Glibc
import SystemKit
import TarKit

/// Text formatting for archive members.
enum ArchiveFormat {
    /// `drwxr-xr-x` from a member's kind and permission bits (`h` for a hard link, as `tar -tv` shows it).
    static func mode(_ kind: ArchiveReader.Kind, _ permissions: UInt32) -> String {
        var text: [UInt8] = []
        appendMode(kind, permissions, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// One member line as list prints it, appended to `out` as bytes (no string a field: list prints one a
    /// member): `-rw-r--r-- 0/0              69 2026-12-02T04:20:40Z  name`, then ` -> target` for a symlink or
    /// ` link to target` for a hard link. Owner left-aligned in 9 columns, size right-aligned in 12, as before.
    static func appendLine(
        _ kind: ArchiveReader.Kind, permissions: UInt32, owner: (user: Int64, group: Int64), size: some BinaryInteger,
        mtime: (seconds: Int64, nanoseconds: Int32), name: [UInt8], link: [UInt8]?, to out: inout [UInt8]
    ) {
        appendMode(kind, permissions, to: &out)
        out.append(UInt8(ascii: " "))
        let ownerStart = out.count
        appendDecimal(owner.user, to: &out)
        out.append(UInt8(ascii: "/"))
        appendDecimal(owner.group, to: &out)
        for _ in (out.count - ownerStart)..<max(9, out.count - ownerStart) { out.append(UInt8(ascii: " ")) }
        out.append(UInt8(ascii: " "))
        let width = decimalWidth(size)
        for _ in width..<max(12, width) { out.append(UInt8(ascii: " ")) }
        appendDecimal(size, to: &out)
        out.append(UInt8(ascii: " "))
        Timestamp.append(seconds: mtime.seconds, nanoseconds: mtime.nanoseconds, to: &out)
        out.append(UInt8(ascii: " "))
        out.append(UInt8(ascii: " "))
        appendName(bytes: name, to: &out)
        if let link {
            out.append(contentsOf: (kind == .hardLink ? " link to " : " -> ").utf8)
            appendName(bytes: link, to: &out)
        }
    }

    private static func appendMode(_ kind: ArchiveReader.Kind, _ permissions: UInt32, to out: inout [UInt8]) {
        let start = out.count
        out.append(kind.letter.asciiValue ?? UInt8(ascii: "?"))
        for (index, letter) in "rwxrwxrwx".utf8.enumerated() {
            out.append(permissions & (0o400 >> UInt32(index)) != 0 ? letter : UInt8(ascii: "-"))
        }
        // setuid, setgid, sticky: over the owner's, group's and others' x (capital when x is not set).
        func special(_ bit: UInt32, at place: Int, _ lower: UInt8) {
            guard permissions & bit != 0 else { return }
            out[start + place] = out[start + place] == UInt8(ascii: "x") ? lower : lower - 0x20
        }
        special(0o4000, at: 3, UInt8(ascii: "s"))
        special(0o2000, at: 6, UInt8(ascii: "s"))
        special(0o1000, at: 9, UInt8(ascii: "t"))
    }

    /// `value` in decimal (`String(value)`'s digits, a minus sign first for a negative one).
    private static func appendDecimal(_ value: some BinaryInteger, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        NumberText.appendDecimal(UInt64(value.magnitude), to: &out)
    }

    /// How many characters `appendDecimal` writes for `value`.
    private static func decimalWidth(_ value: some BinaryInteger) -> Int {
        var width = value < 0 ? 2 : 1
        var magnitude = UInt64(value.magnitude)
        while magnitude >= 10 {
            magnitude /= 10
            width += 1
        }
        return width
    }

    /// `name(bytes:)` appended to `out`: a name of plain characters (most are) as it is, without a string.
    static func appendName(bytes: [UInt8], to out: inout [UInt8]) {
        if bytes.withUnsafeBufferPointer({ $0.allSatisfy(isPlain) }) { return out.append(contentsOf: bytes) }
        out.append(contentsOf: name(bytes: bytes).utf8)
    }

    /// A member name (or link target) as GNU tar's default `escape` quoting prints it, so one member is one
    /// line and a name cannot move the cursor or recolour the terminal: `\\` for a backslash, `\n`, `\t`,
    /// `\r`, `\a`, `\b`, `\f`, `\v`, and every other control character (C0, DEL, C1) or invisible line
    /// or direction control (U+2028, U+2029, U+202A-U+202E, U+2066-U+2069) as octal UTF-8 bytes (`\033`).
    static func name(_ text: String) -> String {
        if text.utf8.allSatisfy(isPlain) { return text }
        var shown = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": shown += "\\\\"
            case "\n": shown += "\\n"
            case "\t": shown += "\\t"
            case "\r": shown += "\\r"
            case "\u{07}": shown += "\\a"
            case "\u{08}": shown += "\\b"
            case "\u{0C}": shown += "\\f"
            case "\u{0B}": shown += "\\v"
            default:
                if isUnprintable(scalar) {
                    for byte in String(scalar).utf8 { shown += "\\" + octal(byte) }
                } else {
                    shown.unicodeScalars.append(scalar)
                }
            }
        }
        return shown
    }

    /// `name` of raw name bytes (a member's path or link target as the archive holds it): each byte that is not
    /// part of valid UTF-8 is shown in octal, as GNU tar shows it (`bad\377name`).
    /// A name for JSON: the name itself when it is valid UTF-8 (JSON escapes control characters), else as
    /// `name(bytes:)` shows it (tar's escapes, each invalid byte in octal).
    static func jsonName(bytes: [UInt8]) -> String {
        String(validating: bytes, as: UTF8.self) ?? name(bytes: bytes)
    }

    static func name(bytes: [UInt8]) -> String {
        if bytes.allSatisfy(isPlain) { return String(decoding: bytes, as: UTF8.self) }
        if let text = String(validating: bytes, as: UTF8.self) { return name(text) }
        var shown = ""
        var index = 0
        while index < bytes.count {
            let lead = bytes[index]
            let length = lead < 0x80 ? 1 : lead >> 5 == 0b110 ? 2 : lead >> 4 == 0b1110 ? 3 : lead >> 3 == 0b11110 ? 4 : 0
            if length > 0, index + length <= bytes.count,
                let scalar = String(validating: bytes[index..<(index + length)], as: UTF8.self)
            {
                shown += name(scalar)
                index += length
            } else {
                shown += "\\" + octal(lead)
                index += 1
            }
        }
        return shown
    }

    /// Printable ASCII other than a backslash: shown as it is (most names are nothing else).
    private static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\\")
    }

    private static func isUnprintable(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
            || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
    }

    private static func octal(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 8)
        return String(repeating: "0", count: 3 - digits.count) + digits
    }
}
