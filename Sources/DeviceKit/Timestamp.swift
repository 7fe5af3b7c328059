// Timestamp: ISO-8601 times as devicectl reads and prints them.
import Foundation
import Glibc

/// ISO-8601 parsing and formatting (`2026-12-01T09:00:00Z`, fractional seconds and offsets accepted).
public enum Timestamp {
    /// Parses an ISO-8601 date-time; nil when `text` is not one, or names a time that does not exist
    /// (`2026-02-30`, hour 24, minute 60: Foundation would roll them over into the next day or hour).
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard fieldsExist(bytes) else { return nil }
        if let date = parseWritten(bytes) { return date }
        if let date = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text) { return date }
        if let date = try? Date.ISO8601FormatStyle().parse(text) { return date }
        return nil
    }

    /// Formats `date` in UTC, e.g. `2026-12-01T09:00:00Z`, or with `.SSS` milliseconds (truncated) when the
    /// date has a fraction: the one UTC formatter (the manifest's `created` too). The same text as Foundation's
    /// ISO 8601 style, but with `gmtime_r`: that style loads ICU's time zone data, about 1.5 MiB of peak RSS
    /// in a backup that needs none of it.
    public static func format(_ date: Date) -> String {
        let since1970 = date.timeIntervalSince1970
        // Foundation splits seconds and fraction on the reference-date scale; so does this (the same
        // milliseconds for every Double, e.g. 2000-02-29T00:00:00.123Z).
        let reference = date.timeIntervalSinceReferenceDate
        let whole = reference.rounded(.down)
        // A date read from a file can be anything a Double holds (1e300; NaN if a reader let it through): no
        // calendar date for those.
        if whole.isNaN { return "nan" }
        var text: [UInt8] = []
        guard abs(whole) < 0x1p62, appendCalendar(Int64(whole) + Int64(referenceOffset), to: &text) else {
            return format(seconds: wholeSeconds(date), nanoseconds: 0)
        }
        if since1970.rounded(.down) != since1970 {
            text.append(UInt8(ascii: "."))
            appendDigits(min(Int((reference - whole) * 1000), 999), width: 3, to: &text)
        }
        text.append(UInt8(ascii: "Z"))
        return String(decoding: text, as: UTF8.self)
    }

    /// A file time (`list`'s mtimes) in UTC with its nanoseconds when there are any:
    /// `2026-11-29T12:00:00.123456789Z`, or `2026-11-29T12:00:00Z`; a time past any calendar year (an archive
    /// can say anything) as its seconds, `-9223372036854775808`, as GNU tar prints it.
    public static func format(seconds: Int64, nanoseconds: Int32) -> String {
        var text: [UInt8] = []
        append(seconds: seconds, nanoseconds: nanoseconds, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// `format(seconds:nanoseconds:)`'s text appended to `out` as UTF-8, without a string (list prints one a
    /// member).
    public static func append(seconds: Int64, nanoseconds: Int32, to out: inout [UInt8]) {
        guard appendCalendar(seconds, to: &out) else { return out.append(contentsOf: String(seconds).utf8) }
        if nanoseconds != 0 {
            out.append(UInt8(ascii: "."))
            // A hostile archive's nanoseconds can be anything: printf's `%09d`, as before, for those.
            if (0..<1_000_000_000).contains(nanoseconds) {
                appendDigits(Int(nanoseconds), width: 9, to: &out)
            } else {
                out.append(contentsOf: pad(Int(nanoseconds), 9).utf8)
            }
        }
        out.append(UInt8(ascii: "Z"))
    }

    /// Appends `YYYY-MM-DDTHH:MM:SS` in UTC, `seconds` after 1970; false (nothing appended) past the years
    /// `gmtime_r` can name. Years 0 to 9999 from the days since 1970 (Howard Hinnant's civil_from_days: no
    /// `gmtime_r`, whose time-zone lock every call takes); the years before and after through `gmtime_r`,
    /// printf's `%04d` and `%02d`.
    private static func appendCalendar(_ seconds: Int64, to out: inout [UInt8]) -> Bool {
        guard (firstCommonSecond...lastCommonSecond).contains(seconds) else {
            var value = time_t(seconds)
            var parts = tm()
            guard gmtime_r(&value, &parts) != nil else { return false }
            var text = pad(Int(parts.tm_year) + 1900, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-"
            text += pad(Int(parts.tm_mday), 2) + "T" + pad(Int(parts.tm_hour), 2) + ":" + pad(Int(parts.tm_min), 2)
            out.append(contentsOf: (text + ":" + pad(Int(parts.tm_sec), 2)).utf8)
            return true
        }
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
        let month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
        let year = Int(yearOfEra + era * 400) + (month <= 2 ? 1 : 0)
        appendDigits(year, width: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(month, width: 2, to: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(day, width: 2, to: &out)
        out.append(UInt8(ascii: "T"))
        appendDigits(secondOfDay / 3600, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay / 60 % 60, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay % 60, width: 2, to: &out)
        return true
    }

    /// `value` (0 or more, fewer than `width` digits) zero-padded to `width` digits.
    private static func appendDigits(_ value: Int, width: Int, to out: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }

    /// 0000-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the years `appendCalendar` computes itself.
    private static let firstCommonSecond: Int64 = -62_167_219_200
    private static let lastCommonSecond: Int64 = 253_402_300_799

    /// `date`'s whole seconds since 1970 (toward zero), clamped to Int64's range; 0 for NaN.
    public static func wholeSeconds(_ date: Date) -> Int64 {
        let seconds = date.timeIntervalSince1970
        if seconds.isNaN { return 0 }
        if seconds >= 0x1p63 { return .max }
        if seconds < -0x1p63 { return .min }
        return Int64(seconds)
    }

    /// The two forms `format` writes (`2026-12-01T09:00:00Z`, `2026-12-01T09:00:00.123Z`), years 1600 to 9999,
    /// without Foundation: its parser loads the time-zone data (readlink /etc/localtime, the zone files) to read
    /// one time, the event log's on every `launch` and `status`. The same Date as Foundation's, to the bit:
    /// seconds of the day plus the fraction first, then the days (TimestampTests compares them). Anything else
    /// (other fractions, offsets, earlier years: Foundation's calendar is Julian before 1582) goes to Foundation.
    /// `bytes` passed `fieldsExist`.
    static func parseWritten(_ bytes: [UInt8]) -> Date? {
        guard bytes.last == UInt8(ascii: "Z"), bytes.count == 20 || (bytes.count == 24 && bytes[19] == UInt8(ascii: "."))
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), year >= 1600, let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            let millis = bytes.count == 24 ? number(20..<23) : 0
        else { return nil }
        // Days from 2001-01-01 to the civil date (proleptic Gregorian: Howard Hinnant's days_from_civil).
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468 - Int64(referenceOffset / 86_400)
        let secondsOfDay = Double(hour * 3600 + minute * 60 + second) + Double(millis) / 1000
        return Date(timeIntervalSinceReferenceDate: Double(days * 86_400) + secondsOfDay)
    }

    /// Seconds from 1970 to Foundation's reference date (2001-01-01).
    private static let referenceOffset = 978_307_200

    /// `value` in at least `width` characters, zeros after any sign (printf's `%0*d`).
    private static func pad(_ value: Int, _ width: Int) -> String {
        if value < 0 { return "-" + pad(-value, width - 1) }
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// Whether `YYYY-MM-DDTHH:MM:SS[.f][Z|±HH:MM]` names a real calendar day and time of day.
    private static func fieldsExist(_ bytes: [UInt8]) -> Bool {
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard bytes.count >= 19, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return false }
        guard (1...12).contains(month), day >= 1, day <= days(inMonth: month, year: year),
            hour <= 23, minute <= 59, second <= 59
        else { return false }
        // The zone: `Z` or `±HH:MM` at the end (after any fraction).
        if bytes.last == UInt8(ascii: "Z") { return true }
        guard bytes.count >= 25, let sign = bytes.dropLast(5).last,
            sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"), bytes[bytes.count - 3] == UInt8(ascii: ":"),
            let hours = number(bytes.count - 5..<bytes.count - 3), let minutes = number(bytes.count - 2..<bytes.count)
        else { return false }
        return hours <= 23 && minutes <= 59
    }

    /// The days in `month` (1-12) of the Gregorian `year`.
    private static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
