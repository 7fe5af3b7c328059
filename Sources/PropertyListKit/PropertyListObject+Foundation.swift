// PropertyListObject+Foundation: a value as Foundation's plist API returns or takes one, made writable.
import Foundation

extension PropertyListObject {
    /// Converts `value`: Swift's `Bool`, integers, floating point, `String`, `Date`, `Data`, arrays and dictionaries
    /// with string keys, and the `NSNumber`, `NSString`, `NSArray`, `NSDictionary` Foundation's reader returns.
    /// Dictionary keys are sorted (bytewise), so the same value gives the same bytes when written.
    /// - Throws: `PropertyListConversionError` for anything else (a key that is not a string, an integer beyond
    ///   64 bits, a value of another type), and for a value nested deeper or of more values in all than `limits`:
    ///   what Foundation read from a hostile file can share one container many times (a binary plist of a few
    ///   hundred bytes can describe 2^40 values), which a writer would expand.
    public init(foundation value: Any, limits: PropertyListLimits = .document) throws(PropertyListConversionError) {
        var budget = limits.values
        try self.init(foundation: value, depth: 0, budget: &budget, limits: limits)
    }

    private init(
        foundation value: Any, depth: Int, budget: inout Int, limits: PropertyListLimits
    ) throws(PropertyListConversionError) {
        guard depth <= limits.depth else {
            throw PropertyListConversionError("nested deeper than \(limits.depth) levels")
        }
        budget -= 1
        guard budget >= 0 else {
            throw PropertyListConversionError("more than \(limits.values) values (a container shared many times)")
        }
        // A Bool first: Foundation's NSNumber would also cast to an integer.
        if type(of: value) == Bool.self, let flag = value as? Bool {
            self = .bool(flag)
            return
        }
        switch value {
        case let object as PropertyListObject: self = object
        // Collections before any Foundation class: a cast to one bridges a Swift collection first, copying all of it.
        case let array as [Any]:
            var elements: [PropertyListObject] = []
            elements.reserveCapacity(array.count)
            for element in array {
                elements.append(try PropertyListObject(foundation: element, depth: depth + 1, budget: &budget, limits: limits))
            }
            self = .array(elements)
        case let dictionary as [String: Any]:
            self = try Self.dictionary(dictionary.map { ($0.key, $0.value) }, depth: depth, budget: &budget, limits: limits)
        case let dictionary as [AnyHashable: Any]:
            var pairs: [(String, Any)] = []
            for (key, element) in dictionary {
                guard let name = key.base as? String else {
                    throw PropertyListConversionError("a dictionary key that is not a string (\(type(of: key.base)))")
                }
                pairs.append((name, element))
            }
            self = try Self.dictionary(pairs, depth: depth, budget: &budget, limits: limits)
        case let text as String: self = .string(text)
        case let date as Date: self = .date(date)
        case let data as Data: self = .data(Array(data))
        // An NSNumber by what it holds (a real stays a real); Swift's numbers when one is not bridged.
        case let number as NSNumber: self = try Self.number(number)
        case let number as Int: self = .integer(Int64(number))
        case let number as Int64: self = .integer(number)
        case let number as Int32: self = .integer(Int64(number))
        case let number as UInt32: self = .integer(Int64(number))
        case let number as UInt64:
            guard let fitted = Int64(exactly: number) else {
                throw PropertyListConversionError("the integer \(number) does not fit in 64 signed bits")
            }
            self = .integer(fitted)
        case let number as Double: self = .real(number)
        case let number as Float: self = .real(Double(number))
        default:
            throw PropertyListConversionError("a value of type \(type(of: value)), which a property list cannot hold")
        }
    }

    /// An `NSNumber` by the type it holds: `c`/`B` a Boolean (as `NSNumber(value: Bool)` and a plist's `<true/>`
    /// come back), `f`/`d` a real, an unsigned 64-bit one only when it fits, any other an integer.
    private static func number(_ number: NSNumber) throws(PropertyListConversionError) -> PropertyListObject {
        switch String(cString: number.objCType) {
        case "c", "B": return .bool(number.boolValue)
        case "f", "d": return .real(number.doubleValue)
        case "Q", "L":
            guard let fitted = Int64(exactly: number.uint64Value) else {
                throw PropertyListConversionError("the integer \(number.uint64Value) does not fit in 64 signed bits")
            }
            return .integer(fitted)
        default: return .integer(number.int64Value)
        }
    }

    private static func dictionary(
        _ pairs: [(String, Any)], depth: Int, budget: inout Int, limits: PropertyListLimits
    ) throws(PropertyListConversionError) -> PropertyListObject {
        var converted: [(String, PropertyListObject)] = []
        converted.reserveCapacity(pairs.count)
        for (key, element) in pairs.sorted(by: { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }) {
            converted.append((key, try PropertyListObject(foundation: element, depth: depth + 1, budget: &budget, limits: limits)))
        }
        return .dictionary(converted)
    }
}

extension PropertyListObject {
    /// The value as Foundation's plist reader returns one on Linux, for code written against it: a Swift `Bool`,
    /// an `NSNumber` for integers (`q`) and reals (`d`), `String`, `Date`, `Data`, `[Any]`, and `[String: Any]`
    /// (dictionaries; a repeated key keeps its last value). A UID becomes `["CF$UID": n]`, its XML form.
    public var foundation: Any {
        switch self {
        case .string(let text): text
        case .integer(let number): NSNumber(value: number)
        case .real(let number): NSNumber(value: number)
        case .bool(let flag): flag
        case .data(let bytes): Data(bytes)
        case .date(let date): date
        case .uid(let reference): ["CF$UID": NSNumber(value: reference)] as [String: Any]
        case .array(let elements): elements.map(\.foundation)
        case .dictionary(let pairs):
            Dictionary(pairs.map { ($0.0, $0.1.foundation) }, uniquingKeysWith: { _, last in last }) as [String: Any]
        }
    }
}
