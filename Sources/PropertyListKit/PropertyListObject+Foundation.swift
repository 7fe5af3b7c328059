// PropertyListObject+Foundation: a value as Foundation's plist API returns or takes one, made writable.
import Foundation

extension PropertyListObject {
    /// Converts `value`: Swift's `Bool`, integers, floating point, `String`, `Date`, `Data`, arrays and dictionaries
    /// with string keys, and the `NSNumber`, `NSString`, `NSArray`, `NSDictionary` Foundation's reader returns.
    /// Dictionary keys are written sorted (bytewise), so the same value gives the same bytes.
    /// - Throws: `PropertyListConversionError` for anything else (a key that is not a string, an integer beyond
    ///   64 bits, a value of another type).
    public init(foundation value: Any) throws(PropertyListConversionError) {
        // A Bool first: Foundation's NSNumber would also cast to an integer.
        if type(of: value) == Bool.self, let flag = value as? Bool {
            self = .bool(flag)
            return
        }
        switch value {
        case let object as PropertyListObject: self = object
        case let text as String: self = .string(text)
        case let date as Date: self = .date(date)
        case let data as Data: self = .data(Array(data))
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
        case let number as NSNumber: self = try Self.number(number)
        case let array as [Any]: self = .array(try array.map { v throws(PropertyListConversionError) in try Self(foundation: v) })
        case let dictionary as [String: Any]: self = try Self.dictionary(dictionary.map { ($0.key, $0.value) })
        case let dictionary as [AnyHashable: Any]:
            var pairs: [(String, Any)] = []
            for (key, element) in dictionary {
                guard let name = key.base as? String else {
                    throw PropertyListConversionError("a dictionary key that is not a string (\(type(of: key.base)))")
                }
                pairs.append((name, element))
            }
            self = try Self.dictionary(pairs)
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

    private static func dictionary(_ pairs: [(String, Any)]) throws(PropertyListConversionError) -> PropertyListObject {
        var converted: [(String, PropertyListObject)] = []
        converted.reserveCapacity(pairs.count)
        for (key, element) in pairs.sorted(by: { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }) {
            converted.append((key, try PropertyListObject(foundation: element)))
        }
        return .dictionary(converted)
    }
}
