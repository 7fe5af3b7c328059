// PropertyListReadTests: a device's plists are read by PropertyListKit's capped reader, not by Foundation's (which
// expands a binary plist's shared objects while it parses), and come back in the form Foundation's reader gives.
import DeviceKit
import Foundation
import PropertyListKit
import SystemKit
import TestSupport
import Testing

@Suite struct PropertyListReadTests {
    /// A binary plist of `levels` arrays, each holding the next one twice, ending in the integer 1: a few hundred
    /// bytes that describe 2^`levels` values.
    static func sharedArrays(levels: Int) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for level in 0..<levels {
            offsets.append(bytes.count)
            bytes += [0xA2, UInt8(level + 1), UInt8(level + 1)]
        }
        offsets.append(bytes.count)
        bytes += [0x10, 0x01]
        let table = bytes.count
        for offset in offsets { bytes += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
        bytes += [0, 0, 0, 0, 0, 0, 2, 1]
        for value in [UInt64(offsets.count), 0, UInt64(table)] { bytes += (0..<8).reversed().map { UInt8(value >> ($0 * 8) & 0xFF) } }
        return bytes
    }

    /// 2^23 values: Foundation's reader builds all of them (seconds, a gigabyte); the capped reader stops at 16 a byte.
    @Test(arguments: [MalformedPlistTests.Target.homeScreen, .groupDefaults, .containerMetadata, .identity])
    func sharedObjectsPastTheCapAreRefusedNamingTheFile(_ target: MalformedPlistTests.Target) throws {
        try withTemporaryDirectory { dir in
            let device = try MalformedPlistTests.device(in: dir)
            let path = try target.path(on: device)
            // The same shape Foundation's reader accepts when it is small: the file is a property list.
            #expect(try PropertyListSerialization.propertyList(from: Data(Self.sharedArrays(levels: 3)), format: nil) is [Any])
            try Data(Self.sharedArrays(levels: 23)).write(to: URL(fileURLWithPath: path))
            do {
                try target.read(device)
                Issue.record("\(target): a plist of 2^23 values was read")
            } catch {
                #expect("\(error)".contains(path) && "\(error)".contains("values in 159 bytes, objects shared many times"), "\(error)")
            }
        }
    }

    @Test func sharedObjectsWithinTheCapReadAsFoundationReadsThem() throws {
        let bytes = Self.sharedArrays(levels: 4)
        let expected = try PropertyListSerialization.propertyList(from: Data(bytes), format: nil)
        #expect(Self.describe(try PropertyListFile.parse(bytes, path: "x.plist")) == Self.describe(expected))
    }

    /// Every kind of value, in both of Foundation's formats and in PropertyListKit's writer's bytes.
    static var sample: [String: Any] { [
        "flag": true, "off": false, "small": 7, "negative": -3, "large": Int64(1) << 40, "max": Int64.max,
        "real": 0.25, "whole": 2.0, "text": "Ünïcode 📱", "empty": "", "when": Date(timeIntervalSince1970: 1_796_115_600),
        "bytes": Data([0, 1, 255]), "list": [1, "two", [3.5, false], ["k": "v"]] as [Any],
        "nested": ["deep": ["deeper": [true]]], "none": [String: Any](), "nothing": [Any](),
    ] }

    @Test(arguments: ["binary", "xml", "writer"])
    func valuesComeBackAsFoundationsReaderGivesThem(_ format: String) throws {
        let bytes: [UInt8] = switch format {
        case "binary": Array(try PropertyListSerialization.data(fromPropertyList: Self.sample, format: .binary, options: 0))
        case "xml": Array(try PropertyListSerialization.data(fromPropertyList: Self.sample, format: .xml, options: 0))
        default: try PropertyListFile.encode(Self.sample)
        }
        let expected = try PropertyListSerialization.propertyList(from: Data(bytes), format: nil)
        let read = try PropertyListFile.parse(bytes, path: "sample.plist")
        #expect(Self.describe(read) == Self.describe(expected))
        #expect(Self.describe(read).contains("flag=bool(true)") && Self.describe(read).contains("whole=real(2.0)"))
        // What callers cast to works on what is read.
        let dictionary = try #require(read as? [String: Any])
        #expect(dictionary["small"] as? Int == 7 && dictionary["flag"] as? Bool == true && dictionary["real"] as? Double == 0.25)
        #expect((dictionary["nested"] as? [String: Any])?["deep"] is [String: Any])
    }

    @Test func anXMLPlistThatDeclaresEntitiesIsRefused() throws {
        let xml = """
            <?xml version="1.0"?><!DOCTYPE plist [<!ENTITY a "aaaaaaaaaa">]>
            <plist version="1.0"><string>&a;&a;</string></plist>
            """
        #expect(throws: DeviceError.self) { try PropertyListFile.parse(Array(xml.utf8), path: "x.plist") }
        do {
            _ = try PropertyListFile.parse(Array(xml.utf8), path: "x.plist")
        } catch {
            #expect("\(error)".contains("x.plist") && "\(error)".contains("entities"), "\(error)")
        }
    }

    /// A canonical text of a Foundation plist value: kinds as Foundation's readers mark them (a Swift `Bool`, an
    /// `NSNumber` holding a real or an integer), dictionaries by sorted key.
    static func describe(_ value: Any) -> String {
        if type(of: value) == Bool.self, let flag = value as? Bool { return "bool(\(flag))" }
        switch value {
        case let text as String: return "string(\(text))"
        case let date as Date: return "date(\(date.timeIntervalSince1970))"
        case let data as Data: return "data(\(Array(data)))"
        case let array as [Any]: return "[" + array.map(describe).joined(separator: ",") + "]"
        case let dictionary as [String: Any]:
            return "{" + dictionary.keys.sorted().map { "\($0)=\(describe(dictionary[$0]!))" }.joined(separator: ",") + "}"
        case let number as NSNumber:
            let type = String(cString: number.objCType)
            return type == "d" || type == "f" ? "real(\(number.doubleValue))" : "int(\(number.int64Value))"
        default: return "other(\(type(of: value)))"
        }
    }
}
