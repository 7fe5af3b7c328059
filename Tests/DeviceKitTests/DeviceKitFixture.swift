// DeviceKitFixture: a fresh device in a temporary directory, and fixed times, for DeviceKit tests.
import DeviceKit
import Foundation
import TestSupport

enum DeviceKitFixture {
    /// 2026-12-01T09:00:00Z plus `hours`.
    static func time(hours: Double = 0) -> Date {
        Timestamp.parse("2026-12-01T09:00:00Z")!.addingTimeInterval(hours * 3600)
    }

    /// Runs `body` with a freshly initialised device at `<tmp>/phone`.
    static func withDevice<T>(_ body: (Device) throws -> T) throws -> T {
        try withTemporaryDirectory { dir in
            try body(try Device.initialize("\(dir)/phone", now: time()))
        }
    }

    /// Writes `text` to `path`, replacing whatever is there.
    static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }
}
