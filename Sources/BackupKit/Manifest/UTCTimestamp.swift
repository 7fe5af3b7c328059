// UTCTimestamp: the manifest's `created` time, formatted without ICU.
import Foundation
import Glibc

/// Formats a date exactly as `Timestamp.format` does (`2026-12-01T09:00:00Z`, or `.SSS` milliseconds,
/// truncated, when the date has a fraction), but with `gmtime_r` instead of Foundation's ISO 8601 style,
/// which loads ICU's time zone data: about 1.5 MiB of peak RSS in a backup that needs none of it.
enum UTCTimestamp {
    /// Seconds from 1970 to Foundation's reference date (2001-01-01).
    private static let referenceOffset = 978_307_200

    static func format(_ date: Date) -> String {
        let since1970 = date.timeIntervalSince1970
        // Foundation splits seconds and fraction on the reference-date scale; so does this (the same
        // milliseconds for every Double, e.g. 2000-02-29T00:00:00.123Z).
        let reference = date.timeIntervalSinceReferenceDate
        let whole = reference.rounded(.down)
        var seconds = time_t(Int(whole) + referenceOffset)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var text = pad(Int(parts.tm_year) + 1900, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-" + pad(Int(parts.tm_mday), 2)
        text += "T" + pad(Int(parts.tm_hour), 2) + ":" + pad(Int(parts.tm_min), 2) + ":" + pad(Int(parts.tm_sec), 2)
        if since1970.rounded(.down) != since1970 {
            text += "." + pad(min(Int((reference - whole) * 1000), 999), 3)
        }
        return text + "Z"
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
