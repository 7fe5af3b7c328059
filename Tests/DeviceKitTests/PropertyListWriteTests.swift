// PropertyListWriteTests: the device's plists go through the one writer (PropertyListKit), which Foundation's reader
// reads back value for value: arrays inside dictionaries included (Foundation's own writer refuses those in a
// binary with the Swift runtime linked statically), with sorted keys, the same bytes every time.
import DeviceKit
import Foundation
import PropertyListKit
import SystemKit
import TestSupport
import Testing

@Suite struct PropertyListWriteTests {
    static let date = Date(timeIntervalSince1970: 1_796_115_600)

    /// A home-screen-like tree: pages of icons and widgets, numbers of each width, Unicode text, dates and data.
    static var tree: [String: Any] { [
        "iconLists": [["com.example.news", ["elementType": "widget", "gridSize": "medium", "iconLists": [["a"]]]], []],
        "buttonBar": ["com.apple.mobilephone"], "flag": true, "off": false, "small": 7, "negative": -3,
        "large": Int64(1) << 40, "real": 0.25, "whole": 1.0, "nsWhole": NSNumber(value: 3.0), "text": "Ünïcode 📱", "when": date, "bytes": Data([0, 1, 255]),
        "nested": ["deep": [[true, 1], ["x": NSNumber(value: 2.5)]]],
    ] }

    @Test func whatIsWrittenFoundationReadsBack() throws {
        let bytes = try PropertyListFile.encode(Self.tree)
        let read = try #require(
            try PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as? [String: Any])
        #expect(try PropertyListObject(foundation: read) == (try PropertyListObject(foundation: Self.tree)), "\(read)")
        #expect(read["flag"] as? Bool == true && read["off"] as? Bool == false)
        #expect(read["small"] as? Int == 7 && read["negative"] as? Int == -3 && read["large"] as? Int == 1 << 40)
        #expect(read["real"] as? Double == 0.25 && read["text"] as? String == "Ünïcode 📱")
        #expect(read["when"] as? Date == Self.date && read["bytes"] as? Data == Data([0, 1, 255]))
        let pages = try #require(read["iconLists"] as? [[Any]])
        #expect(pages.count == 2 && pages[0].first as? String == "com.example.news" && pages[1].isEmpty)
        let widget = try #require(pages[0].last as? [AnyHashable: Any])
        #expect(widget["gridSize"] as? String == "medium" && (widget["iconLists"] as? [[String]]) == [["a"]])
        let deep = try #require((read["nested"] as? [AnyHashable: Any])?["deep"] as? [Any])
        #expect((deep[0] as? [Any])?.first as? Bool == true && ((deep[1] as? [AnyHashable: Any])?["x"] as? Double) == 2.5)
        #expect((read["small"] as? NSNumber).map { String(cString: $0.objCType) } != "c", "an integer is no Boolean")
        for key in ["whole", "nsWhole"] {
            #expect((read[key] as? NSNumber).map { String(cString: $0.objCType) } == "d", "\(key): a whole real stays real")
        }
    }

    @Test func theSameValueGivesTheSameBytes() throws {
        let first = try PropertyListFile.encode(Self.tree)
        let reordered = Dictionary(uniqueKeysWithValues: Self.tree.sorted { $0.key > $1.key })
        #expect(try PropertyListFile.encode(reordered) == first)
        // What Foundation read comes back to the same bytes (NSNumber, [AnyHashable: Any] and all).
        let read = try PropertyListSerialization.propertyList(from: Data(first), format: nil)
        #expect(try PropertyListFile.encode(read) == first)
    }

    /// Around the object counts where a reference grows a byte (256, 65,536): CoreFoundation refuses a file whose
    /// count does not fit in its references, so each of these must read back.
    @Test(arguments: [254, 255, 256, 257, 65_534, 65_535, 65_536, 65_537])
    func everyObjectCountReadsBack(_ objects: Int) throws {
        let array = (0..<(objects - 1)).map { $0 }  // the array and its elements
        let bytes = try PropertyListFile.encode(array)
        let read = try #require(try PropertyListSerialization.propertyList(from: Data(bytes), format: nil) as? [Int])
        #expect(read == array)
    }

    /// A value shared into 2^40 values (as Foundation returns a hostile binary plist whose containers are shared:
    /// Swift arrays share storage, so this costs nothing to build) or nested 10,000 deep is refused before the
    /// writer expands it, and `write` names the file and writes nothing.
    @Test func aSharedOrDeepValueIsRefused() throws {
        var shared: Any = 1
        for _ in 0..<40 { shared = [shared, shared] }
        #expect(throws: PropertyListConversionError.self) { try PropertyListFile.encode(["k": shared]) }
        var deep: Any = 1
        for _ in 0..<10_000 { deep = [deep] }
        #expect(throws: PropertyListConversionError.self) { try PropertyListFile.encode(deep) }
        try withTemporaryDirectory { dir in
            let root = try ContainedRoot(opening: dir)
            #expect {
                try PropertyListFile.write(["k": shared], to: "a.plist", in: root)
            } throws: { error in
                guard case DeviceError.malformedPlist(let path, let reason)? = error as? DeviceError else { return false }
                return path.hasSuffix("a.plist") && reason.contains("values")
            }
            #expect(!FileManager.default.fileExists(atPath: dir + "/a.plist"))
        }
    }

    @Test func aValueNoPropertyListHoldsIsRefusedNamingItsType() {
        #expect(throws: PropertyListConversionError.self) { try PropertyListFile.encode(["url": URL(fileURLWithPath: "/")]) }
        #expect(throws: PropertyListConversionError.self) { try PropertyListFile.encode([[1: "a"] as [Int: String]]) }
        #expect(throws: PropertyListConversionError.self) { try PropertyListFile.encode(["big": UInt64.max]) }
    }
}
