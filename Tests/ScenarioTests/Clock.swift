// Clock: the scenarios' timeline. Every step happens at an explicit time, so "24 hours later" is exact.
import Foundation

enum Clock {
    static let second: TimeInterval = 1
    static let minute: TimeInterval = 60
    static let hour: TimeInterval = 3_600

    /// The old phone's first day: it is set up and the app launched at 08:00.
    static let start = date("2026-12-01T08:00:00Z")
    /// That night's backup.
    static let backup = start + 14 * hour
    /// The next morning, on the new phone: restore, then the widget's first refresh.
    static let restore = start + 24 * hour
    static let firstRefresh = restore + 1 * hour

    /// The app's default nudge delay ("if the app is not launched for 24 hours after the restore").
    static let nudgeDelay = 24 * hour

    static func iso(_ date: Date) -> String {
        ISO8601DateFormatter().string(from: date)
    }

    static func date(_ iso: String) -> Date {
        guard let date = ISO8601DateFormatter().date(from: iso) else { preconditionFailure("not ISO-8601: \(iso)") }
        return date
    }
}
