// PropertyListReader: a property list, binary or XML, from someone else's bytes, within caps.
import Foundation

/// Reads a property list that someone else wrote (a backup's Manifest.plist, Info.plist or Status.plist, a device's
/// IconState.plist, container metadata or defaults suite). Binary ones are decoded by `BinaryPropertyListReader`,
/// never by Foundation, whose reader expands shared objects while it parses (a few hundred bytes can describe 2^40
/// values). XML ones (what idevicebackup2 writes for Info.plist) go to Foundation's parser, which caps nesting, after
/// a check that they declare no entities, and are converted with the same value and depth caps. The caller has
/// checked the size before reading.
public enum PropertyListReader {
    public static func read(
        _ bytes: [UInt8], limits: PropertyListLimits = .properties
    ) throws(PropertyListReadError) -> PropertyListObject {
        if BinaryPropertyListReader.isBinary(bytes) { return try BinaryPropertyListReader.read(bytes, limits: limits) }
        guard isXML(bytes) else { throw PropertyListReadError("not a property list") }
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
        do {
            return try PropertyListObject(foundation: parsed, limits: limits)
        } catch {
            throw PropertyListReadError(error.reason)
        }
    }

    /// Whether `bytes` start (after white space and a byte-order mark) as an XML document does.
    static func isXML(_ bytes: [UInt8]) -> Bool {
        let text = bytes.drop { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 || $0 == 0xEF || $0 == 0xBB || $0 == 0xBF }
        return text.starts(with: Array("<?xml".utf8)) || text.starts(with: Array("<plist".utf8))
            || text.starts(with: Array("<!DOCTYPE".utf8))
    }
}
