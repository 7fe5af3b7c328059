// ProgressBar: a one-line progress display on stderr (files, bytes, rate), redrawn in place.
import BackupKit
import Foundation
import Glibc
import SystemKit

/// Draws `  1,234 files  56.7 MB  89.0 MB/s  0:03` on stderr, at most ten times a second, with a bar,
/// a percentage and the time left (`ETA 0:12`) when the fraction done is known. Disabled (draws nothing)
/// unless `enabled`.
/// `finish()` erases the line so the summary prints cleanly.
final class ProgressBar {
    private let console: Console
    private let enabled: Bool
    private let label: String
    private let environment: [String: String]
    private var lastDraw = -1.0
    private var drawn = false

    init(
        console: Console, enabled: Bool, label: String,
        environment: [String: String] = ProcessEnvironment.current()
    ) {
        self.console = console
        self.enabled = enabled
        self.label = label
        self.environment = environment
    }

    /// Redraws with the current counts (throttled to 10 Hz unless `force`).
    /// `fraction`: how much of the work is done (0...1), when known.
    /// `total`: the input's size, when known (for `--json` progress lines). Under `--json`, a `JSONProgressLine`
    /// on stderr instead of the drawn line. `counting`: the total is being counted (the line says so where the
    /// bar goes).
    func update(
        files: UInt64, bytes: UInt64, seconds: Double, fraction: Double? = nil, total: UInt64? = nil,
        counting: Bool = false, force: Bool = false
    ) {
        guard enabled else { return }
        guard force || seconds - lastDraw >= 0.1 else { return }
        lastDraw = seconds
        if console.isJSON {
            let (done, remaining) = Self.progress(fraction, seconds: seconds)
            console.progress(
                JSONProgressLine(
                    files: files, bytes: bytes, total: total, percent: done.map { ($0 * 1000).rounded() / 10 },
                    secondsRemaining: remaining.map { ($0 * 10).rounded() / 10 }, seconds: (seconds * 10).rounded() / 10))
            return
        }
        // Measured at every draw, so a resized terminal gets lines of its new width.
        let width = Self.columns(environment: environment)
        let line = Self.line(
            label: label, files: files, bytes: bytes, seconds: seconds, fraction: fraction, counting: counting,
            width: width)
        console.errRaw("\r\u{1B}[2K" + line)
        drawn = true
    }

    /// Redraws with a read's counts (restore, verify, list): the share read, when the source knows its total
    /// (an archive file's size, a MobileSync backup's rows).
    func update(_ progress: ReadProgress) {
        update(
            files: progress.files, bytes: progress.bytes, seconds: progress.seconds, fraction: progress.fraction,
            total: progress.total)
    }

    /// The progress line, fitted to `width` columns less one: a line that reached the last column would
    /// wrap on some terminals, and `\r` then redraws only its last row, leaving the first one stale. What
    /// does not fit is dropped whole, least useful first: the bar, the rate, the label, the elapsed time. With
    /// a fraction, the time shown is what is left (from the rate so far, once 1% is done), else the time spent.
    /// `counting`: no fraction yet, but one is being counted: `counting...` stands where the bar will be.
    static func line(
        label: String, files: UInt64, bytes: UInt64, seconds: Double, fraction: Double?, counting: Bool = false,
        width: Int
    ) -> String {
        var bar: String? = counting ? "counting..." : nil
        let (done, remaining) = progress(fraction, seconds: seconds)
        if let fraction = done {
            let cells = 24
            let filled = Int(fraction * Double(cells))
            bar = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: cells - filled) + "] "
                + Self.percent(fraction * 100)
        }
        let counts = "\(count(files)) files  \(Self.bytes(bytes))"
        let rate = seconds > 0 ? "\(Self.bytes(UInt64(Double(bytes) / seconds)))/s" : nil
        let time = remaining.map { "ETA " + duration($0) } ?? duration(seconds)
        let layouts: [[String?]] = [
            [label, bar, counts, rate, time], [label, counts, rate, time], [label, counts, time], [counts, time],
            [counts],
        ]
        let room = max(0, width - 1)
        for layout in layouts {
            let line = layout.compactMap { $0 }.joined(separator: "  ")
            if line.count <= room { return line }
        }
        return String(counts.prefix(room))
    }

    /// The share done (0...1) and the time left (from the rate so far, once 1% is done), when a fraction is known.
    static func progress(_ fraction: Double?, seconds: Double) -> (done: Double?, remaining: Double?) {
        guard let value = fraction, value.isFinite, value >= 0 else { return (nil, nil) }
        let done = min(1, value)
        return (done, done >= 0.01 && done < 1 ? seconds * (1 - done) / done : nil)
    }

    /// The terminal's width: TIOCGWINSZ on stderr, else `COLUMNS`, else 80.
    static func columns(environment: [String: String]) -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let text = environment["COLUMNS"], let columns = Int(text), (1...100_000).contains(columns) {
            return columns
        }
        return 80
    }

    /// Erases the line.
    func finish() {
        guard enabled, drawn else { return }
        console.errRaw("\r\u{1B}[2K")
        drawn = false
    }

    // MARK: - Formatting (shared with summaries)

    /// `1,234,567`.
    static func count(_ value: UInt64) -> String {
        let digits = Array(String(value))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }

    /// Decimal units: `999 B`, `1.2 kB`, `200.1 MB`, `3.4 GB`.
    static func bytes(_ value: UInt64) -> String {
        if value < 1000 { return "\(value) B" }
        let units = ["kB", "MB", "GB", "TB", "PB"]
        var amount = Double(value) / 1000
        var unit = 0
        while amount >= 1000 && unit < units.count - 1 {
            amount /= 1000
            unit += 1
        }
        return NumberText.fixed(amount, places: 1) + " " + units[unit]
    }

    /// `  7%`, ` 42%`, `100%`: `%3.0f%%`.
    static func percent(_ value: Double) -> String {
        let digits = NumberText.fixed(value, places: 0)
        return String(repeating: " ", count: max(0, 3 - digits.count)) + digits + "%"
    }

    /// `0:03`, `12:34`, `1:02:03`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.down))
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        let tail = NumberText.padded(secs, width: 2)
        return hours > 0 ? "\(hours):\(NumberText.padded(minutes, width: 2)):\(tail)" : "\(minutes):\(tail)"
    }
}
