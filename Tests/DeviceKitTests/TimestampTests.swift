import DeviceKit
import Foundation
import Testing

@Suite struct TimestampTests {
    @Test func roundTrip() throws {
        let date = try #require(Timestamp.parse("2026-12-01T09:00:00Z"))
        #expect(Timestamp.format(date) == "2026-12-01T09:00:00Z")
        #expect(Timestamp.parse("yesterday") == nil)
        #expect(Timestamp.parse("2026-12-01T10:00:00+01:00") == date)
    }
}
