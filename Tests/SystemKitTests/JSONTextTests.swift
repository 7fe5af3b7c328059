// JSONTextTests: JSONText writes what JSONEncoder (.sortedKeys, .withoutEscapingSlashes) writes for the same values:
// every ASCII byte and seeded random Unicode in strings, integers at their edges, Doubles of every magnitude, objects
// with keys in every order.
import Foundation
import SystemKit
import Testing

@Suite struct JSONTextTests {
    private func encoded(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    private func written(_ body: (inout [UInt8]) -> Void) -> [UInt8] {
        var out: [UInt8] = []
        body(&out)
        return out
    }

    /// Seeded strings: ASCII controls, quotes, backslashes, slashes, DEL, Latin, CJK, U+2028/9, emoji, combining marks.
    static func strings(count: Int, seed: UInt64) -> [String] {
        var state = seed
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let pool: [Unicode.Scalar] = (0...0x7F).map { Unicode.Scalar(UInt8($0)) } + [
            "é", "ß", "Ω", "中", "文", "\u{2028}", "\u{2029}", "\u{FEFF}", "😀", "\u{0301}", "\u{10FFFF}", "\u{FFFD}",
        ]
        return (0..<count).map { _ in
            var text = String.UnicodeScalarView()
            for _ in 0..<Int(next() % 24) { text.append(pool[Int(next() % UInt64(pool.count))]) }
            return String(text)
        }
    }

    @Test func stringsAsJSONEncoderWritesThem() throws {
        let every = (0...0x7F).map { String(Unicode.Scalar(UInt8($0))) }
        for text in every + Self.strings(count: 3_000, seed: 1) {
            #expect(written { JSONText.appendString(text, to: &$0) } == (try encoded(text)), "\(Array(text.utf8))")
        }
    }

    @Test func integersAndBooleans() throws {
        for value: UInt64 in [0, 1, 9, 10, 99, 100, 12_345, UInt64(UInt32.max), UInt64(Int64.max), .max] {
            #expect(written { JSONText.appendNumber(value, to: &$0) } == (try encoded(value)))
        }
        for value in [0, -1, 7, -12_345, Int.max, Int.min] {
            #expect(written { JSONText.appendNumber(value, to: &$0) } == (try encoded(value)))
        }
        #expect(written { JSONText.appendBool(true, to: &$0) } == (try encoded(true)))
        #expect(written { JSONText.appendBool(false, to: &$0) } == (try encoded(false)))
        #expect(written { JSONText.appendNull(to: &$0) } == (try encoded(String?.none)))
    }

    @Test func doublesAsJSONEncoderWritesThem() throws {
        var values: [Double] = [
            0, -0.0, 1, -1, 0.5, 0.1, 86_400, 1e-7, 1e-5, 1e16, 1e21, 1.2345678901234568e16, 123_456_789.125,
            .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        ]
        var state: UInt64 = 7
        for _ in 0..<5_000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let value = Double(bitPattern: state)
            if value.isFinite { values.append(value) }
            values.append(Double(Int64(bitPattern: state) >> Int64(state % 60)))
        }
        for value in values {
            var out: [UInt8] = []
            #expect(JSONText.appendNumber(value, to: &out))
            #expect(out == (try encoded(value)), "\(value)")
        }
        for value in [Double.nan, .infinity, -.infinity] {
            var out: [UInt8] = []
            #expect(!JSONText.appendNumber(value, to: &out) && out.isEmpty)
            #expect(throws: (any Error).self) { try encoded(value) }
        }
    }

    @Test func objectsWithSortedKeys() throws {
        let keys = Self.strings(count: 400, seed: 2)
        for start in stride(from: 0, to: keys.count, by: 20) {
            var dictionary: [String: String] = [:]
            for key in keys[start..<start + 20] { dictionary[key] = key + "!" }
            let fields = dictionary.map { key, value in (key: key, value: { JSONText.appendString(value, to: &$0) }) }
                as [(key: String, value: (inout [UInt8]) -> Void)]
            #expect(written { JSONText.appendObject(fields, to: &$0) } == (try encoded(dictionary)))
        }
        #expect(written { JSONText.appendObject([], to: &$0) } == (try encoded([String: String]())))
        #expect(written { out in JSONText.appendArray([1, 2, 3], to: &out) { JSONText.appendNumber($0, to: &$1) } }
                == (try encoded([1, 2, 3])))
        #expect(written { out in JSONText.appendArray([Int](), to: &out) { JSONText.appendNumber($0, to: &$1) } }
                == (try encoded([Int]())))
    }
}
