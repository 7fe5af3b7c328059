// BinaryPropertyListWriterTests: what the writer encodes, Python's plistlib reads back value for value.
import Foundation
import MobileSyncKit
import PropertyListKit
import Testing

@Suite struct BinaryPropertyListWriterTests {
    private func decoded(_ object: PropertyListObject) throws -> Any {
        let json = try PythonOracle.run(PythonOracle.plistToJSON, input: BinaryPropertyListWriter.encode(object))
        return try JSONSerialization.jsonObject(with: Data(json.utf8))
    }

    @Test func scalarsOfEverySizeReadBackAsWritten() throws {
        let values: [Int64] = [0, 1, 255, 256, 65_535, 65_536, 4_294_967_295, 4_294_967_296, Int64.max, -1, Int64.min]
        let object = PropertyListObject.array(values.map { .integer($0) } + [.bool(true), .bool(false)])
        let read = try #require(try decoded(object) as? [Any])
        #expect(read.prefix(values.count).map { ($0 as? NSNumber)?.int64Value } == values.map { $0 })
        #expect(read.suffix(2).map { $0 as? Bool } == [true, false])
    }

    @Test func stringsDataDatesAndUIDsReadBackAsWritten() throws {
        let long = String(repeating: "x", count: 300)
        let object = PropertyListObject.dictionary([
            ("ascii", .string("Library/Preferences/group.x.plist")),
            ("unicode", .string("Résumé 📱")),
            ("long", .string(long)),
            ("empty", .string("")),
            ("data", .data([0, 1, 2, 0xFF])),
            ("bigData", .data([UInt8](repeating: 7, count: 70_000))),
            ("date", .date(Date(timeIntervalSince1970: 1_700_000_000))),
            ("uid", .uid(1)),
            ("bigUID", .uid(70_000)),
        ])
        let read = try #require(try decoded(object) as? [String: Any])
        #expect(read["ascii"] as? String == "Library/Preferences/group.x.plist")
        #expect(read["unicode"] as? String == "Résumé 📱")
        #expect(read["long"] as? String == long)
        #expect(read["empty"] as? String == "")
        #expect((read["data"] as? [String: String])?["data"] == "000102ff")
        #expect((read["bigData"] as? [String: String])?["data"] == String(repeating: "07", count: 70_000))
        #expect(((read["date"] as? [String: Any])?["date"] as? NSNumber)?.doubleValue == 1_700_000_000)
        #expect(((read["uid"] as? [String: Any])?["UID"] as? NSNumber)?.intValue == 1)
        #expect(((read["bigUID"] as? [String: Any])?["UID"] as? NSNumber)?.intValue == 70_000)
    }

    @Test func manyObjectsUseWiderReferencesAndOffsets() throws {
        // 70,000 objects: object references need 4 bytes, offsets 4 bytes.
        let object = PropertyListObject.array((0..<70_000).map { .string("item \($0)") })
        let read = try #require(try decoded(object) as? [String])
        #expect(read.count == 70_000)
        #expect(read.first == "item 0" && read.last == "item 69999")
    }

    @Test func dictionariesKeepTheirKeyOrder() throws {
        let bytes = BinaryPropertyListWriter.encode(.dictionary([("b", .integer(1)), ("a", .integer(2))]))
        let order = try PythonOracle.run(
            "import plistlib, sys; print(','.join(plistlib.loads(sys.stdin.buffer.read()).keys()))", input: bytes)
        #expect(order.trimmingCharacters(in: .whitespacesAndNewlines) == "b,a")
    }
}
