import SystemKit
import Testing

@Suite struct HexTests {
    @Test func encodesLowercaseTwoDigitsAByte() {
        #expect(Hex.encode([0x00, 0x0f, 0xa5, 0xff]) == "000fa5ff")
        #expect(Hex.encode([UInt8]()) == "")
    }

    /// Appending writes the same digits as encoding, to the end of what is there, whatever the length.
    @Test(arguments: [0, 1, 31, 32, 33, 64, 65, 100])
    func appendsWhatEncodeWrites(_ count: Int) {
        let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
        var text = Array("x=".utf8)
        Hex.append(bytes, to: &text)
        #expect(text == Array(("x=" + Hex.encode(bytes)).utf8))
        var fromSequence: [UInt8] = []
        Hex.append(bytes.lazy.map { $0 }, to: &fromSequence)
        #expect(fromSequence == Array(Hex.encode(bytes).utf8))
    }

    @Test func decodesEitherCaseAndRoundTrips() {
        #expect(Hex.decode(Array("000FA5ff".utf8)) == [0x00, 0x0f, 0xa5, 0xff])
        let bytes = (0...255).map { UInt8($0) }
        #expect(Hex.decode(Array(Hex.encode(bytes).utf8)) == bytes)
        #expect(Hex.decode([UInt8]()) == [])
    }

    @Test(arguments: ["abc", "0g", "zz", "0x", " 0", "0\u{0}", "é0"])
    func refusesMalformedText(_ text: String) {
        #expect(Hex.decode(Array(text.utf8)) == nil)
    }
}
