// DeviceValueError: a value from outside (an option, a manifest, a device's plist) that DeviceValue refused.

/// A refused value: the field it was read from, the value as shown to a user (escaped, truncated) and the
/// problem, kept apart so each caller words the context (a usage error, a bad manifest, a malformed plist).
public struct DeviceValueError: Error, CustomStringConvertible, Equatable, Sendable {
    /// Why a value was refused.
    public enum Problem: Equatable, Sendable, CustomStringConvertible {
        case empty
        /// Longer than `limit` UTF-8 bytes.
        case tooLong(bytes: Int, limit: Int)
        /// `.` or `..`, which name a directory, not an entry.
        case dotName
        /// A character no value of this kind may hold (shown escaped, e.g. `'/'`, `U+0000`).
        case forbidden(String, kind: String)
        /// A character outside an identifier's letters, digits, `-`, `_` and `.`.
        case notIdentifier(String)
        /// NaN or infinite.
        case notFinite
        /// A number outside `min...max` (`unit` names what it counts).
        case outOfRange(min: Double, max: Double, unit: String)
        /// More than `limit` entries.
        case tooMany(count: Int, limit: Int)
        /// The same value appears earlier, in `first`.
        case duplicate(first: String)
        /// The value must name one of `what`, and does not.
        case unlisted(String)
        /// Not an ISO-8601 date-time.
        case notTimestamp

        public var description: String {
            switch self {
            case .empty: "it is empty"
            case .tooLong(let bytes, let limit): "it is \(bytes) bytes long, longer than \(limit)"
            case .dotName: "'.' and '..' are not names"
            case .forbidden(let character, let kind): "\(kind) must not contain \(character)"
            case .notIdentifier(let character):
                "\(character) is not allowed: an identifier uses letters, digits, '-', '_' and '.'"
            case .notFinite: "it is not a finite number"
            case .outOfRange(let min, let max, let unit):
                "it must be from \(DeviceValueError.number(min)) to \(DeviceValueError.number(max)) \(unit)"
            case .tooMany(let count, let limit): "\(count) entries, more than the \(limit) allowed"
            case .duplicate(let first): "it repeats \(first)"
            case .unlisted(let what): "it is not one of \(what)"
            case .notTimestamp: "it is not an ISO-8601 date and time such as 2026-12-01T09:00:00Z"
            }
        }
    }

    /// Where the value came from: an option (`--marker-name`), a manifest field (`apps[3].name`), a plist key.
    public let field: String
    /// The value as displayed: control characters and quotes escaped, at most `displayLimit` characters.
    public let value: String
    public let problem: Problem

    /// Characters of a value shown in a message; the rest is elided with its length.
    public static let displayLimit = 80

    /// An error for the raw `value` of `field` (escaped and truncated here).
    public init(field: String, value: String, problem: Problem) {
        self.init(field: field, displayValue: DeviceValueError.display(value), problem: problem)
    }

    /// An error whose value is already in display form (a number, an entry count).
    public init(field: String, displayValue: String, problem: Problem) {
        self.field = field
        self.value = displayValue
        self.problem = problem
    }

    /// The same error for a field inside `prefix` (e.g. `apps[2].` + `widget.flagKey`).
    public func within(_ prefix: String) -> DeviceValueError {
        DeviceValueError(field: prefix + field, displayValue: value, problem: problem)
    }

    public var description: String {
        if case .tooMany = problem { return "too many \(field): \(problem)" }
        return "invalid value '\(value)' for \(field): \(problem)"
    }

    /// `text` for a message: quotes, backslashes and control characters escaped (`\u{1B}`), cut after
    /// `displayLimit` characters with the total length in bytes.
    public static func display(_ text: String) -> String {
        var shown = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == displayLimit {
                return shown + "...(\(text.utf8.count) bytes)"
            }
            count += 1
            switch scalar {
            case "'": shown += "\\'"
            case "\\": shown += "\\\\"
            default:
                if DeviceValue.isControl(scalar) {
                    shown += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                } else {
                    shown.unicodeScalars.append(scalar)
                }
            }
        }
        return shown
    }

    /// A number as a message shows it: whole numbers without a fraction.
    static func number(_ value: Double) -> String {
        value.isFinite && value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}
