// NudgeSettings+Duration: printing a delay the way `--nudge-delay` reads it.

extension NudgeSettings {
    /// Formats seconds as `parseDuration` reads them, in hours, minutes and seconds: `24h`, `1h30m`, `0s`.
    public static func formatDuration(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds > 0 else { return "0s" }
        // Beyond any valid delay (DeviceValue.maxDelaySeconds) a whole number of hours may not fit an Int.
        guard seconds < 1e15 else { return "\(seconds)s" }
        var rest = seconds
        var text = ""
        for (unit, size) in [("h", 3_600.0), ("m", 60.0)] where rest >= size {
            let whole = (rest / size).rounded(.down)
            text += "\(Int(whole))\(unit)"
            rest -= whole * size
        }
        if rest > 0 {
            text += rest == rest.rounded() ? "\(Int(rest))s" : "\(rest)s"
        }
        return text
    }

    /// The delay formatted, e.g. `24h`.
    public var delayText: String { NudgeSettings.formatDuration(delaySeconds) }
}
