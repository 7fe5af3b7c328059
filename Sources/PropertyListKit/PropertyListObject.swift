// PropertyListObject: a property list value to be written, with NSKeyedArchiver's UIDs and ordered dictionaries.
import Foundation

/// A value `BinaryPropertyListWriter` writes. Dictionaries keep their keys in the order given (the order a
/// device writes them), and `uid` is the NSKeyedArchiver object reference Foundation's plist API cannot write.
public enum PropertyListObject: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case real(Double)
    case bool(Bool)
    case data([UInt8])
    case date(Date)
    case uid(UInt64)
    case array([PropertyListObject])
    case dictionary([(String, PropertyListObject)])

    public static func == (lhs: PropertyListObject, rhs: PropertyListObject) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): a == b
        case let (.integer(a), .integer(b)): a == b
        case let (.real(a), .real(b)): a == b
        case let (.bool(a), .bool(b)): a == b
        case let (.data(a), .data(b)): a == b
        case let (.date(a), .date(b)): a == b
        case let (.uid(a), .uid(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.dictionary(a), .dictionary(b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: false
        }
    }
}

extension PropertyListObject {
    /// The value of a dictionary's `key`, or nil (also when this is not a dictionary).
    public subscript(key: String) -> PropertyListObject? {
        guard case .dictionary(let pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    public var string: String? { if case .string(let value) = self { value } else { nil } }
    public var integer: Int64? { if case .integer(let value) = self { value } else { nil } }
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    public var data: [UInt8]? { if case .data(let value) = self { value } else { nil } }
    public var date: Date? { if case .date(let value) = self { value } else { nil } }
    public var uid: UInt64? { if case .uid(let value) = self { value } else { nil } }
    public var array: [PropertyListObject]? { if case .array(let value) = self { value } else { nil } }
    public var pairs: [(String, PropertyListObject)]? { if case .dictionary(let value) = self { value } else { nil } }
}
