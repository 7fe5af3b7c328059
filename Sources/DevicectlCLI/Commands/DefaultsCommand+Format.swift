// DefaultsCommand+Format: printing property-list values the way macOS `defaults read` does
// (the old-style NeXT form: `{ key = value; }`, `( a, b )`, booleans as 1/0).
import DeviceKit
import Foundation
import SystemKit

extension DefaultsCommand {
    /// Formats defaults values like macOS `defaults read`.
    enum Format {
        /// A value as `defaults read DOMAIN KEY` prints it: scalars bare, containers in old-style form.
        static func value(_ value: Any) -> String {
            switch value {
            case let array as [Any]: describe(array, level: 0)
            case let dictionary as [String: Any]: describe(dictionary, level: 0)
            default: scalar(value)
            }
        }

        /// A whole domain as `defaults read DOMAIN` prints it.
        static func domain(_ dictionary: [String: Any]) -> String {
            describe(dictionary, level: 0)
        }

        /// A scalar's text without quotes: `1`/`0` for booleans, numbers, strings as they are,
        /// dates as `2026-12-01 09:00:00 +0000`, data as `{length = 2, bytes = 0x0102}`.
        static func scalar(_ value: Any) -> String {
            if type(of: value) == Bool.self, let bool = value as? Bool { return bool ? "1" : "0" }
            switch value {
            case let string as String: return string
            case let date as Date: return dateText(date)
            case let data as Data:
                return "{length = \(data.count), bytes = 0x\(Hex.encode(data))}"
            case let number as NSNumber: return numberText(number)
            case let int as Int: return String(int)
            case let double as Double: return doubleText(double)
            default: return String(describing: value)
            }
        }

        static func numberText(_ number: NSNumber) -> String {
            switch String(cString: number.objCType) {
            case "c" where number.int64Value == 0 || number.int64Value == 1:
                return number.boolValue ? "1" : "0"
            case "d", "f": return doubleText(number.doubleValue)
            case "Q", "L", "I", "S", "C": return String(number.uint64Value)
            default: return String(number.int64Value)
            }
        }

        /// `2` for 2.0, `1.5`, `1e-05`: the shortest text that reads back as the same double.
        static func doubleText(_ double: Double) -> String {
            if double.isFinite && double == double.rounded() && abs(double) < 1e15 { return String(Int64(double)) }
            return "\(double)"
        }

        /// `2026-12-01 09:00:00 +0000`: the one UTC formatter's text (`Timestamp`), whole seconds, as `defaults` shows it.
        static func dateText(_ date: Date) -> String {
            let text = Timestamp.format(seconds: Timestamp.wholeSeconds(date), nanoseconds: 0)
            guard text.hasSuffix("Z") else { return text }
            return text.dropLast().replacingOccurrences(of: "T", with: " ") + " +0000"
        }

        // MARK: - Old-style containers

        static func indent(_ level: Int) -> String { String(repeating: " ", count: 4 * level) }

        /// `{`, one `key = value;` line per key (sorted), `}`; nested containers open after an
        /// extra indent, as macOS prints them (`key =     (`).
        static func describe(_ dictionary: [String: Any], level: Int) -> String {
            var text = "{\n"
            for key in dictionary.keys.sorted() {
                text += indent(level + 1) + quoted(key) + " = " + element(dictionary[key]!, level: level + 1) + ";\n"
            }
            return text + indent(level) + "}"
        }

        static func describe(_ array: [Any], level: Int) -> String {
            var text = "(\n"
            for (index, item) in array.enumerated() {
                let body = element(item, level: level + 1)
                text += (isContainer(item) ? "" : indent(level + 1)) + body + (index < array.count - 1 ? ",\n" : "\n")
            }
            return text + indent(level) + ")"
        }

        /// A value inside a container: scalars quoted when needed, containers after an extra indent.
        static func element(_ value: Any, level: Int) -> String {
            switch value {
            case let array as [Any]: indent(level) + describe(array, level: level)
            case let dictionary as [String: Any]: indent(level) + describe(dictionary, level: level)
            default: quoted(scalar(value))
            }
        }

        static func isContainer(_ value: Any) -> Bool { value is [Any] || value is [String: Any] }

        /// `text` bare when it is ASCII letters and digits only, else in double quotes with `\\`, `\"`,
        /// `\n`, `\t` and `\Uxxxx` escapes, as NSString's description does.
        static func quoted(_ text: String) -> String {
            let plain =
                !text.isEmpty
                && text.unicodeScalars.allSatisfy {
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))
                }
            if plain { return text }
            var result = "\""
            for unit in text.utf16 {
                switch unit {
                case 0x22: result += "\\\""
                case 0x5C: result += "\\\\"
                case 0x0A: result += "\\n"
                case 0x09: result += "\\t"
                case 0x20...0x7E: result += String(UnicodeScalar(UInt8(unit)))
                default: result += "\\U" + NumberText.padded(unit, width: 4, radix: 16)
                }
            }
            return result + "\""
        }
    }
}
