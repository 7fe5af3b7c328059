// NudgeSettings: how an app's restore-nudge widget behaves, chosen at install.
import Foundation

/// The app's nudge widget configuration (recorded in its Info.plist and in backup manifests).
public struct NudgeSettings: Codable, Sendable, Equatable {
    /// When the widget clears its flag.
    public enum Policy: String, Codable, Sendable, CaseIterable {
        /// Clear the flag only when a notification is scheduled (the article's prose). Default.
        case once
        /// Clear the flag on every refresh (the article's code as published).
        case asPublished = "as-published"
    }

    public var policy: Policy
    /// Seconds between the refresh that decides and the notification's fire date.
    public var delaySeconds: Double
    public var title: String
    public var body: String
    /// The marker file's name in the app's first App Group container.
    public var markerFileName: String
    /// The boolean key in the App Group's shared defaults suite.
    public var flagKey: String

    public static let defaultMarkerFileName = "device-restoration-marker.txt"
    public static let defaultFlagKey = "notificationEnabled"
    public static let defaultDelaySeconds: Double = 24 * 60 * 60

    public init(
        policy: Policy = .once, delaySeconds: Double = NudgeSettings.defaultDelaySeconds,
        title: String? = nil, body: String? = nil,
        markerFileName: String = NudgeSettings.defaultMarkerFileName, flagKey: String = NudgeSettings.defaultFlagKey,
        appName: String = "the app"
    ) {
        self.policy = policy
        self.delaySeconds = delaySeconds
        self.title = title ?? "Welcome to your new iPhone"
        self.body = body ?? "Open \(appName) once so it can keep sending you notifications on this device."
        self.markerFileName = markerFileName
        self.flagKey = flagKey
    }

    /// Parses a duration such as `24h`, `90m`, `45s`, `1h30m` or `0s`; nil when malformed or negative.
    public static func parseDuration(_ text: String) -> Double? {
        var total = 0.0
        var number = ""
        var sawUnit = false
        for character in text {
            if character.isNumber || character == "." {
                number.append(character)
                continue
            }
            guard let value = Double(number) else { return nil }
            switch character {
            case "d": total += value * 86_400
            case "h": total += value * 3_600
            case "m": total += value * 60
            case "s": total += value
            default: return nil
            }
            number = ""
            sawUnit = true
        }
        guard number.isEmpty, sawUnit, total.isFinite, total >= 0 else { return nil }
        return total
    }
}
