// Manifest+WidgetSettings: the manifest's record of an app's nudge widget settings, its own type: the archive
// format does not change when DeviceKit's `NudgeSettings` does.
import DeviceKit

extension Manifest {
    /// `apps[i].widget` in the header: `{"body","delaySeconds","flagKey","markerFileName","policy","title"}`.
    /// The keys are spelled out (`CodingKeys`), so renaming a property cannot change the format.
    public struct WidgetSettings: Codable, Sendable, Equatable {
        /// When the widget clears its flag: `"once"` or `"as-published"`.
        public enum Policy: String, Codable, Sendable {
            case once
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

        private enum CodingKeys: String, CodingKey {
            case policy, delaySeconds, title, body, markerFileName, flagKey
        }

        /// The record of an installed app's `settings`.
        public init(_ settings: NudgeSettings) {
            policy = settings.policy == .once ? .once : .asPublished
            delaySeconds = settings.delaySeconds
            title = settings.title
            body = settings.body
            markerFileName = settings.markerFileName
            flagKey = settings.flagKey
        }

        /// The settings to reinstall the app with (validated by the installation, as `install`'s options are).
        public var settings: NudgeSettings {
            NudgeSettings(
                policy: policy == .once ? .once : .asPublished, delaySeconds: delaySeconds, title: title, body: body,
                markerFileName: markerFileName, flagKey: flagKey)
        }
    }
}
