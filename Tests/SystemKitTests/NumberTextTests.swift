// NumberTextTests: NumberText writes what Foundation's String(format:) writes for the same formats.
import Foundation
import SystemKit
import Testing

@Suite struct NumberTextTests {
    @Test(arguments: [0, 1, 9, 10, 99, 100, 4096, 1_000_000_007, UInt64(Int64.max), UInt64.max])
    func appendsDecimalAsDescriptionWrites(_ value: UInt64) {
        var text = Array("n=".utf8)
        NumberText.appendDecimal(value, to: &text)
        #expect(text == Array("n=\(value)".utf8))
    }

    @Test func fixedDecimalsAsPrintfWritesThem() {
        // Ties, values just off a tie, a binary value below its decimal form (0.15), huge, tiny, signed, not finite.
        let values: [Double] = [
            0, -0.0, 0.5, 1.5, 2.5, 0.05, 0.15, 0.25, 0.35, 1.005, 2.675, 99.95, 99.949999, 999.95, 1e-9, 123456789.125,
            -2.5, -0.004, 1e21, 1.7976931348623157e308, .leastNonzeroMagnitude, .infinity, -.infinity, .nan,
        ]
        var generator = SystemRandomNumberGenerator()
        let random = (0..<2_000).map { _ in Double.random(in: -1e6...1e6, using: &generator) }
        for value in values + random {
            for places in 0...3 {
                #expect(NumberText.fixed(value, places: places) == String(format: "%.\(places)f", value),
                        "\(value) with \(places) places")
            }
        }
    }

    @Test func zeroPaddedIntegers() {
        for value in [0, 5, 9, 10, 59, 99, 100, 4095, 65535, 123456] {
            #expect(NumberText.padded(value, width: 2) == String(format: "%02d", value))
            #expect(NumberText.padded(value, width: 4, radix: 16) == String(format: "%04x", value))
        }
        #expect(NumberText.padded(-7, width: 3) == String(format: "%03d", -7))
        #expect(NumberText.padded(UInt64.max, width: 2, radix: 16) == String(format: "%02llx", UInt64.max))
    }
}
