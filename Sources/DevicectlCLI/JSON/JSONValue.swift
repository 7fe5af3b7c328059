// JSONValue: a value whose type is only known at run time (a defaults value, an event detail) as typed JSON.
import DeviceKit
import Foundation

/// Any JSON value. Property-list values map to it as `status` shows them: booleans stay booleans, integers
/// integers, dates ISO-8601 UTC strings, data base64 strings.
enum JSONValue: Codable, Equatable, Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value.isFinite ? value : 0)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// A property-list value (as `PropertyListSerialization` or DeviceKit's defaults return it).
    init(plist value: Any) {
        if type(of: value) == Bool.self, let bool = value as? Bool {
            self = .bool(bool)
            return
        }
        switch value {
        case let string as String: self = .string(string)
        case let date as Date: self = .string(Timestamp.format(date))
        case let data as Data: self = .string(data.base64EncodedString())
        case let array as [Any]: self = .array(array.map(JSONValue.init(plist:)))
        case let dictionary as [String: Any]: self = .object(dictionary.mapValues(JSONValue.init(plist:)))
        case let number as NSNumber:
            let text = DefaultsCommand.Format.numberText(number)
            self = Int64(text).map(JSONValue.integer) ?? .number(number.doubleValue)
        default: self = .string(String(describing: value))
        }
    }
}
