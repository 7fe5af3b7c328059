// PropertyListValue: a property list held as a Sendable value, converted from Foundation's with caps.
import Foundation

/// A property list value. A device's plists are hostile: `init(_:path:limits:)` walks Foundation's parse
/// result with a depth and a node budget (a binary plist can share one object many times, so a 1 MiB file can
/// describe a tree of billions of nodes) and refuses what passes either, naming the file.
public indirect enum PropertyListValue: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case real(Double)
    case bool(Bool)
    case date(Date)
    case data([UInt8])
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])

    /// How deep and how large a converted value may be.
    public struct Limits: Sendable {
        public var depth: Int
        public var nodes: Int

        public init(depth: Int, nodes: Int) {
            self.depth = depth
            self.nodes = nodes
        }
    }

    /// Converts `value` (from `PropertyListSerialization`), refusing one deeper or larger than `limits`:
    /// `DeviceError.malformedPlist` naming `path`.
    public init(_ value: Any, path: String, limits: Limits) throws {
        var budget = limits.nodes
        self = try PropertyListValue.convert(value, depth: 0, budget: &budget, path: path, limits: limits)
    }

    private static func convert(
        _ value: Any, depth: Int, budget: inout Int, path: String, limits: Limits
    ) throws -> PropertyListValue {
        budget -= 1
        guard budget >= 0 else {
            throw DeviceError.malformedPlist(path: path, reason: "more than \(limits.nodes) values")
        }
        guard depth <= limits.depth else {
            throw DeviceError.malformedPlist(path: path, reason: "nested deeper than \(limits.depth) levels")
        }
        if let flag = value as? Bool, type(of: value) == Bool.self { return .bool(flag) }
        switch value {
        case let text as String: return .string(text)
        case let number as NSNumber:
            let type = String(cString: number.objCType)
            if type == "c" || type == "B" { return .bool(number.boolValue) }
            if type == "d" || type == "f" { return .real(number.doubleValue) }
            return .integer(number.intValue)
        case let number as Int: return .integer(number)
        case let number as Double: return .real(number)
        case let date as Date: return .date(date)
        case let data as Data: return .data(Array(data))
        case let array as [Any]:
            var result: [PropertyListValue] = []
            result.reserveCapacity(min(array.count, budget))
            for element in array {
                result.append(try convert(element, depth: depth + 1, budget: &budget, path: path, limits: limits))
            }
            return .array(result)
        case let dictionary as [String: Any]:
            var result: [String: PropertyListValue] = [:]
            for (key, element) in dictionary {
                result[key] = try convert(element, depth: depth + 1, budget: &budget, path: path, limits: limits)
            }
            return .dictionary(result)
        default:
            throw DeviceError.malformedPlist(path: path, reason: "a value of an unknown type")
        }
    }

    /// The value as `PropertyListSerialization` writes it.
    public var foundation: Any {
        switch self {
        case .string(let text): text
        case .integer(let number): number
        case .real(let number): number
        case .bool(let flag): flag
        case .date(let date): date
        case .data(let bytes): Data(bytes)
        case .array(let array): array.map(\.foundation)
        case .dictionary(let dictionary): dictionary.mapValues(\.foundation)
        }
    }

    /// The string, when this is one.
    public var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The array, when this is one.
    public var array: [PropertyListValue]? {
        if case .array(let array) = self { return array }
        return nil
    }

    /// The dictionary, when this is one.
    public var dictionary: [String: PropertyListValue]? {
        if case .dictionary(let dictionary) = self { return dictionary }
        return nil
    }

    /// The type's name for messages: `a string`, `an array`...
    public var typeName: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .real: "a real number"
        case .bool: "a boolean"
        case .date: "a date"
        case .data: "data"
        case .array: "an array"
        case .dictionary: "a dictionary"
        }
    }
}
