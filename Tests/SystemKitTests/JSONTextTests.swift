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

    /// Long strings with one byte of each kind at every place (the scan takes sixteen bytes at a time): what
    /// JSONEncoder writes, and `plainLength` stops exactly at the first byte a string escapes.
    @Test func oneByteAnywhereInALongString() throws {
        let escaped: [UInt8] = [0x00, 0x01, 0x0A, 0x1F, 0x22, 0x5C]
        let plain: [UInt8] = [0x20, 0x2F, 0x5B, 0x5D, 0x7E, 0x7F]
        for length in 1...70 {
            for place in 0..<length {
                for byte in escaped + plain {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[place] = byte
                    let expected = escaped.contains(byte) ? place : length
                    #expect(bytes.withUnsafeBufferPointer { JSONText.plainLength($0) } == expected, "\(byte) at \(place)")
                    let text = String(decoding: bytes, as: UTF8.self)
                    #expect(written { JSONText.appendString(text, to: &$0) } == (try encoded(text)), "\(byte) at \(place)")
                }
            }
        }
    }

    /// Every byte value at every place of strings up to 24 bytes (three words and a tail).
    @Test func plainLengthStopsAtEveryEscapedByte() {
        for length in 1...24 {
            for place in 0..<length {
                for byte in UInt8.min...UInt8.max {
                    var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    bytes[place] = byte
                    let expected = byte < 0x20 || byte == 0x22 || byte == 0x5C ? place : length
                    #expect(bytes.withUnsafeBufferPointer { JSONText.plainLength($0) } == expected, "\(byte) at \(place)")
                }
            }
        }
    }

    /// `plainLength` against the rule written plainly, on seeded random bytes (few escaped ones, anywhere).
    @Test func plainLengthIsTheRuleWrittenPlainly() {
        var state: UInt64 = 20_261_206
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        for _ in 0..<20_000 {
            let bytes = (0..<Int(next() % 100)).map { _ -> UInt8 in
                switch next() % 64 {
                case 0: UInt8(next() % 0x20)
                case 1: 0x22
                case 2: 0x5C
                default: UInt8(0x20 + next() % 0xE0)
                }
            }
            let expected = bytes.firstIndex { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C } ?? bytes.count
            #expect(bytes.withUnsafeBufferPointer { JSONText.plainLength($0) } == expected, "\(bytes)")
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
