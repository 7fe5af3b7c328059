// PropertyListObject+Foundation: a value as Foundation's plist API returns or takes one, made writable.
import Foundation

extension PropertyListObject {
    /// Converts `value`: Swift's `Bool`, integers, floating point, `String`, `Date`, `Data`, arrays and dictionaries
    /// with string keys, and the `NSNumber`, `NSString`, `NSArray`, `NSDictionary` Foundation's reader returns.
    /// Dictionary keys are written sorted (bytewise), so the same value gives the same bytes.
    /// - Throws: `PropertyListConversionError` for anything else (a key that is not a string, an integer beyond
    ///   64 bits, a value of another type), and for a value nested deeper than `maxDepth` or of more than `maxNodes`
    ///   values in all: what Foundation read from a hostile file can share one container many times (a binary plist
    ///   of a few hundred bytes can describe 2^40 values), which this writer would expand.
    public init(foundation value: Any) throws(PropertyListConversionError) {
        var budget = Self.maxNodes
        try self.init(foundation: value, depth: 0, budget: &budget)
    }

    /// The deepest nesting converted (Apple's own plists nest a few dozen levels).
    public static let maxDepth = 512
    /// The most values converted (an 8 MiB plist without sharing holds at most a few million).
    public static let maxNodes = 4_000_000

    private init(foundation value: Any, depth: Int, budget: inout Int) throws(PropertyListConversionError) {
        guard depth <= Self.maxDepth else {
            throw PropertyListConversionError("a value nested deeper than \(Self.maxDepth) levels")
        }
        budget -= 1
        guard budget >= 0 else {
            throw PropertyListConversionError("more than \(Self.maxNodes) values (a container shared many times)")
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
                elements.append(try PropertyListObject(foundation: element, depth: depth + 1, budget: &budget))
            }
            self = .array(elements)
        case let dictionary as [String: Any]:
            self = try Self.dictionary(dictionary.map { ($0.key, $0.value) }, depth: depth, budget: &budget)
        case let dictionary as [AnyHashable: Any]:
            var pairs: [(String, Any)] = []
            for (key, element) in dictionary {
                guard let name = key.base as? String else {
                    throw PropertyListConversionError("a dictionary key that is not a string (\(type(of: key.base)))")
                }
                pairs.append((name, element))
            }
            self = try Self.dictionary(pairs, depth: depth, budget: &budget)
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
        _ pairs: [(String, Any)], depth: Int, budget: inout Int
    ) throws(PropertyListConversionError) -> PropertyListObject {
        var converted: [(String, PropertyListObject)] = []
        converted.reserveCapacity(pairs.count)
        for (key, element) in pairs.sorted(by: { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }) {
            converted.append((key, try PropertyListObject(foundation: element, depth: depth + 1, budget: &budget)))
        }
        return .dictionary(converted)
    }
}
