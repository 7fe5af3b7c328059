// TimestampTests: parsing ISO-8601 times, as Foundation's ISO 8601 style parses them.
import DeviceKit
import Foundation
import Glibc
import TestSupport
import Testing

@Suite struct TimestampTests {
    @Test func roundTrip() throws {
        let date = try #require(Timestamp.parse("2026-12-01T09:00:00Z"))
        #expect(Timestamp.format(date) == "2026-12-01T09:00:00Z")
        #expect(Timestamp.parse("yesterday") == nil)
        #expect(Timestamp.parse("2026-12-01T10:00:00+01:00") == date)
    }

    /// The forms devicectl writes are read without Foundation (`parseWritten`); the Date must be Foundation's to
    /// the bit, before and after 2001, in both forms, and
    /// what Foundation reads otherwise (other fractions, offsets, years before 1600) is read by Foundation.
    @Test func theWrittenFormsGiveFoundationsDate() throws {
        var generator = SeededGenerator(seed: 11)
        let fractional = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        let whole = Date.ISO8601FormatStyle()
        for index in 0..<20_000 {
            // 1600-01-01 to 9999-12-31.
            let seconds = Int64(generator.next() % 265_000_000_000) - 11_670_000_000
            var value = time_t(seconds)
            var parts = tm()
            guard gmtime_r(&value, &parts) != nil, (1600...9999).contains(Int(parts.tm_year) + 1900) else { continue }
            var text = String(
                format: "%04d-%02d-%02dT%02d:%02d:%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
                Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
            let expected: Date
            if index % 2 == 0 {
                text += String(format: ".%03dZ", Int(generator.next() % 1000))
                expected = try fractional.parse(text)
            } else {
                text += "Z"
                expected = try whole.parse(text)
            }
            let parsed = try #require(Timestamp.parse(text), "\(text)")
            #expect(parsed.timeIntervalSinceReferenceDate == expected.timeIntervalSinceReferenceDate, "\(text)")
        }
        // Read by Foundation: six digits, an offset, a year before the Gregorian calendar.
        for text in ["2026-12-01T09:00:00.123456Z", "2026-12-01T09:00:00.5+02:00", "1200-03-01T00:00:00Z"] {
            #expect(Timestamp.parse(text) == (try? fractional.parse(text)) ?? (try? whole.parse(text)), "\(text)")
        }
    }
}
