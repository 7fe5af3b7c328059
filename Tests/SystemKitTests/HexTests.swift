import SystemKit
import Testing

@Suite struct HexTests {
    @Test func encodesLowercaseTwoDigitsAByte() {
        #expect(Hex.encode([0x00, 0x0f, 0xa5, 0xff]) == "000fa5ff")
        #expect(Hex.encode([UInt8]()) == "")
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
