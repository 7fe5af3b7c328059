// TimestampFormatTests: the ICU-free UTC format (also the manifest's `created`) matches Foundation's ISO 8601
// style exactly.
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct TimestampFormatTests {
    /// Foundation's ISO 8601 style: what `Timestamp.format` must print, byte for byte.
    private func foundation(_ date: Date) -> String {
        let whole = date.timeIntervalSince1970.rounded(.down) == date.timeIntervalSince1970
        return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: !whole))
    }

    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00Z"), (1.5, "1970-01-01T00:00:01.500Z"),
        (951_782_400.123, "2000-02-29T00:00:00.123Z"), (1_767_225_600, "2026-01-01T00:00:00Z"),
        (4_102_444_799.9995, "2099-12-31T23:59:59.999Z"),
    ])
    func knownDates(_ seconds: Double, _ expected: String) {
        #expect(Timestamp.format(Date(timeIntervalSince1970: seconds)) == expected)
    }

    @Test func matchesFoundationsISO8601StyleOnManyDates() {
        var generator = SeededGenerator(seed: 42)
        for index in 0..<20_000 {
            let whole = Double(generator.next() % 4_102_444_800)
            let fraction: Double = switch index % 3 {
            case 0: 0
            case 1: Double(generator.next() % 1000) / 1000
            default: Double(generator.next() % 1_000_000_000) / 1e9
            }
            let date = Date(timeIntervalSince1970: whole + fraction)
            #expect(Timestamp.format(date) == foundation(date), "\(whole + fraction)")
        }
        let now = Date()
        #expect(Timestamp.format(now) == foundation(now))
    }

    /// File times as `list` prints them: printf's `%04d-%02d-%02dT%02d:%02d:%02d` and `.%09d` (what it printed
    /// before), and a time past every calendar year as its seconds, as GNU tar prints one.
    @Test func fileTimesMatchPrintfAndPassTheCalendarAsSeconds() {
        var generator = SeededGenerator(seed: 7)
        for index in 0..<5_000 {
            // Years from about -290,000 to 290,000 (gmtime_r's range), nanoseconds sometimes 0.
            let seconds = Int64(bitPattern: generator.next()) % 9_000_000_000_000
            let nanoseconds = index % 4 == 0 ? 0 : Int32(generator.next() % 1_000_000_000)
            var value = time_t(seconds)
            var parts = tm()
            guard gmtime_r(&value, &parts) != nil else { continue }
            var expected = String(
                format: "%04d-%02d-%02dT%02d:%02d:%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
            if nanoseconds != 0 { expected += String(format: ".%09d", Int(nanoseconds)) }
            #expect(Timestamp.format(seconds: seconds, nanoseconds: nanoseconds) == expected + "Z", "\(seconds)")
        }
        #expect(Timestamp.format(seconds: .max, nanoseconds: 5) == "9223372036854775807")
        #expect(Timestamp.format(seconds: 0, nanoseconds: -5) == "1970-01-01T00:00:00.-00000005Z")
        #expect(Timestamp.format(seconds: .min, nanoseconds: 0) == "-9223372036854775808")
        #expect(Timestamp.format(Date(timeIntervalSince1970: 1e300)) == "9223372036854775807")
        #expect(Timestamp.format(Date(timeIntervalSince1970: -.infinity)) == "-9223372036854775808")
        #expect(Timestamp.wholeSeconds(Date(timeIntervalSince1970: -1.5)) == -1)
    }

    /// Years 0 to 9999, which `append` computes without `gmtime_r`: the same text as gmtime_r's fields, at random
    /// and at the edges of days, eras and the range itself.
    @Test func fileTimesOfYearsZeroTo9999MatchGmtime() {
        let first: Int64 = -62_167_219_200  // 0000-01-01T00:00:00Z
        let last: Int64 = 253_402_300_799  // 9999-12-31T23:59:59Z
        var generator = SeededGenerator(seed: 11)
        var cases: [Int64] = [
            first - 1, first, first + 86_399, first + 86_400, -86_401, -86_400, -86_399, -1, 0, 1, 86_399, 86_400,
            951_782_400, 951_868_799, 4_107_542_400, -2_203_891_200, 11_045_260_800, last - 86_400, last, last + 1,
        ]
        for _ in 0..<4_000 { cases.append(first + Int64(generator.next() % UInt64(last - first + 1))) }
        for seconds in cases {
            var value = time_t(seconds)
            var parts = tm()
            guard gmtime_r(&value, &parts) != nil else { continue }
            let expected = String(
                format: "%04d-%02d-%02dT%02d:%02d:%02d.%09dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), 7)
            var appended = Array("x".utf8)
            Timestamp.append(seconds: seconds, nanoseconds: 7, to: &appended)
            #expect(appended == Array(("x" + expected).utf8), "\(seconds)")
        }
    }
}
