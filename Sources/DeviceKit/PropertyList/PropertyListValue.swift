// PropertyListValue: a property list held as a Sendable value, converted from Foundation's with caps.
import Foundation
import PropertyListKit

/// A property list value, unordered and `Sendable`, for the home screen's editing. A device's plists are hostile:
/// `init(_:path:limits:)` converts with PropertyListKit's caps (tighter than the reader's, for a file of a known
/// shape) and refuses what passes either, naming the file.
public indirect enum PropertyListValue: Sendable, Equatable {
    case string(String)
    case integer(Int)
    case real(Double)
    case bool(Bool)
    case date(Date)
    case data([UInt8])
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])

    /// Converts `value` (Foundation's plist types, as `PropertyListFile` reads them), refusing one deeper or larger
    /// than `limits`: `DeviceError.malformedPlist` naming `path`.
    public init(_ value: Any, path: String, limits: PropertyListLimits) throws {
        do {
            self.init(try PropertyListObject(foundation: value, limits: limits))
        } catch {
            throw DeviceError.malformedPlist(path: path, reason: error.reason)
        }
    }

    /// Converts `object` (as `PropertyListFile.readObject` reads one) with the caps and messages of the conversion
    /// above, without making Foundation's types first (that round trip, with its casts, was most of reading the home
    /// screen): nested deeper than `limits.depth` or more than `limits.values` values in all (a repeated key counted
    /// once, its last value kept) is `DeviceError.malformedPlist` naming `path`.
    public init(_ object: PropertyListObject, path: String, limits: PropertyListLimits) throws {
        self.init(object)
        var budget = limits.values
        if let reason = check(depth: 0, budget: &budget, limits: limits) {
            throw DeviceError.malformedPlist(path: path, reason: reason)
        }
    }

    /// The first cap this value breaks, as `PropertyListObject(foundation:limits:)` words it, walking in its order
    /// (depth first, a dictionary's keys in byte order); nil within both.
    private func check(depth: Int, budget: inout Int, limits: PropertyListLimits) -> String? {
        guard depth <= limits.depth else { return "nested deeper than \(limits.depth) levels" }
        budget -= 1
        guard budget >= 0 else { return "more than \(limits.values) values (a container shared many times)" }
        switch self {
        case .array(let elements):
            for element in elements {
                if let reason = element.check(depth: depth + 1, budget: &budget, limits: limits) { return reason }
            }
        case .dictionary(let dictionary):
            for key in dictionary.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                if let reason = dictionary[key]!.check(depth: depth + 1, budget: &budget, limits: limits) { return reason }
            }
        default:
            break
        }
        return nil
    }

    init(_ object: PropertyListObject) {
        switch object {
        case .string(let text): self = .string(text)
        case .integer(let number): self = .integer(Int(number))
        case .real(let number): self = .real(number)
        case .bool(let flag): self = .bool(flag)
        case .date(let date): self = .date(date)
        case .data(let bytes): self = .data(bytes)
        case .uid(let reference): self = .dictionary(["CF$UID": .integer(Int(clamping: reference))])
        case .array(let elements): self = .array(elements.map(PropertyListValue.init))
        case .dictionary(let pairs):
            self = .dictionary(Dictionary(pairs.map { ($0.0, PropertyListValue($0.1)) }, uniquingKeysWith: { _, last in last }))
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
