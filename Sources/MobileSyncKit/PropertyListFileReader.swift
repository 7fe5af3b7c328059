// PropertyListFileReader: a backup's top-level plist, binary or XML, from hostile bytes with caps.
import Foundation
import PropertyListKit

/// Reads Manifest.plist, Info.plist or Status.plist: binary ones with `BinaryPropertyListReader`, XML ones (what
/// idevicebackup2 writes for Info.plist) with Foundation's parser, converted with the same value and depth caps.
/// The caller has checked the size before reading.
public enum PropertyListFileReader {
    public static func read(
        _ bytes: [UInt8], limits: BinaryPropertyListReader.Limits = .properties
    ) throws(PropertyListReadError) -> PropertyListObject {
        if BinaryPropertyListReader.isBinary(bytes) { return try BinaryPropertyListReader.read(bytes, limits: limits) }
        let text = bytes.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
        guard text.starts(with: Array("<?xml".utf8)) || text.starts(with: Array("<plist".utf8))
            || text.starts(with: Array("<!DOCTYPE".utf8))
        else { throw PropertyListReadError("not a property list") }
        // An XML plist has no use for entities; a declaration of one is how a small file expands to gigabytes.
        let entity = Array("<!ENTITY".utf8)
        guard bytes.count < entity.count
            || !(0...(bytes.count - entity.count)).contains(where: { bytes[$0..<$0 + entity.count].elementsEqual(entity) })
        else {
            throw PropertyListReadError("an XML property list that declares entities")
        }
        let parsed: Any
        do {
            parsed = try PropertyListSerialization.propertyList(from: Data(bytes), format: nil)
        } catch {
            throw PropertyListReadError("not a well-formed property list")
        }
        var budget = limits.values
        return try convert(parsed, depth: 0, budget: &budget, limits: limits)
    }

    private static func convert(
        _ value: Any, depth: Int, budget: inout Int, limits: BinaryPropertyListReader.Limits
    ) throws(PropertyListReadError) -> PropertyListObject {
        budget -= 1
        guard budget >= 0 else { throw PropertyListReadError("more than \(limits.values) values") }
        guard depth <= limits.depth else { throw PropertyListReadError("nested deeper than \(limits.depth) levels") }
        if let flag = value as? Bool, type(of: value) == Bool.self { return .bool(flag) }
        switch value {
        case let text as String: return .string(text)
        case let number as NSNumber:
            let type = String(cString: number.objCType)
            if type == "c" || type == "B" { return .bool(number.boolValue) }
            if type == "d" || type == "f" { return .real(number.doubleValue) }
            return .integer(number.int64Value)
        case let number as Int: return .integer(Int64(number))
        case let number as Double: return .real(number)
        case let date as Date: return .date(date)
        case let data as Data: return .data(Array(data))
        case let array as [Any]:
            var result: [PropertyListObject] = []
            for element in array { result.append(try convert(element, depth: depth + 1, budget: &budget, limits: limits)) }
            return .array(result)
        case let dictionary as [String: Any]:
            var pairs: [(String, PropertyListObject)] = []
            for key in dictionary.keys.sorted() {
                pairs.append((key, try convert(dictionary[key]!, depth: depth + 1, budget: &budget, limits: limits)))
            }
            return .dictionary(pairs)
        default:
            throw PropertyListReadError("an unsupported value")
        }
    }
}
