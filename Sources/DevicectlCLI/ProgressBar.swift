// ProgressBar: a one-line progress display on stderr (files, bytes, rate), redrawn in place.
import Foundation

/// Draws `  1,234 files  56.7 MB  89.0 MB/s  0:03` on stderr, at most ten times a second, with a bar
/// and percentage when the total is known. Disabled (draws nothing) unless `enabled`.
/// `finish()` erases the line so the summary prints cleanly.
final class ProgressBar {
    private let console: Console
    private let enabled: Bool
    private let label: String
    private var lastDraw = -1.0
    private var drawn = false

    init(console: Console, enabled: Bool, label: String) {
        self.console = console
        self.enabled = enabled
        self.label = label
    }

    /// Redraws with the current counts (throttled to 10 Hz unless `force`).
    func update(files: UInt64, bytes: UInt64, seconds: Double, totalBytes: UInt64? = nil, force: Bool = false) {
        guard enabled else { return }
        guard force || seconds - lastDraw >= 0.1 else { return }
        lastDraw = seconds
        var line = "\(label) "
        if let totalBytes, totalBytes > 0 {
            let fraction = min(1, Double(bytes) / Double(totalBytes))
            let width = 24
            let filled = Int(fraction * Double(width))
            line += "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            line += String(format: "%3.0f%% ", fraction * 100)
        }
        line += "\(Self.count(files)) files  \(Self.bytes(bytes))"
        if seconds > 0 { line += "  \(Self.bytes(UInt64(Double(bytes) / seconds)))/s" }
        line += "  " + Self.duration(seconds)
        console.errRaw("\r\u{1B}[2K" + line)
        drawn = true
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
        return String(format: "%.1f %@", amount, units[unit])
    }

    /// `0:03`, `12:34`, `1:02:03`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.down))
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, secs) : String(format: "%d:%02d", minutes, secs)
    }
}
