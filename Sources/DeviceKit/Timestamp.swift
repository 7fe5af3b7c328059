// Timestamp: ISO-8601 times as devicectl reads and prints them.
import Foundation

/// ISO-8601 parsing and formatting (`2026-12-01T09:00:00Z`, fractional seconds and offsets accepted).
public enum Timestamp {
    /// Parses an ISO-8601 date-time; nil when `text` is not one.
    public static func parse(_ text: String) -> Date? {
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        return nil
    }

    /// Formats `date` in UTC, e.g. `2026-12-01T09:00:00Z` (fractional seconds only when present).
    public static func format(_ date: Date) -> String {
        let whole = date.timeIntervalSince1970.rounded(.down) == date.timeIntervalSince1970
        return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: !whole))
    }
}
