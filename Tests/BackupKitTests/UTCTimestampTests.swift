// UTCTimestampTests: the manifest's ICU-free time format matches DeviceKit's Timestamp.format exactly.
@testable import BackupKit
import DeviceKit
import Foundation
import Testing

@Suite struct UTCTimestampTests {
    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00Z"), (1.5, "1970-01-01T00:00:01.500Z"),
        (951_782_400.123, "2000-02-29T00:00:00.123Z"), (1_767_225_600, "2026-01-01T00:00:00Z"),
        (4_102_444_799.9995, "2099-12-31T23:59:59.999Z"),
    ])
    func knownDates(_ seconds: Double, _ expected: String) {
        #expect(UTCTimestamp.format(Date(timeIntervalSince1970: seconds)) == expected)
    }

    @Test func matchesTimestampFormatOnManyDates() {
        var generator = SplitMix64(seed: 42)
        for index in 0..<20_000 {
            let whole = Double(generator.next() % 4_102_444_800)
            let fraction: Double = switch index % 3 {
            case 0: 0
            case 1: Double(generator.next() % 1000) / 1000
            default: Double(generator.next() % 1_000_000_000) / 1e9
            }
            let date = Date(timeIntervalSince1970: whole + fraction)
            #expect(UTCTimestamp.format(date) == Timestamp.format(date), "\(whole + fraction)")
        }
        let now = Date()
        #expect(UTCTimestamp.format(now) == Timestamp.format(now))
    }
}

/// A small seeded generator, so a failure names a reproducible date.
private struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
