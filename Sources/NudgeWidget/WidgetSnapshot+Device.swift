// WidgetSnapshot+Device: reading the snapshot from an App Group container and its shared defaults suite.
import DeviceKit
import SystemKit

extension WidgetSnapshot {
    /// What the widget sees in `group`: whether `settings.markerFileName` is a regular file there (not
    /// following a symlink; anything else counts as absent, with `markerProblem` saying what is there, as
    /// `status` says it) and the value of `settings.flagKey` in `suite`.
    /// A suite that cannot be read gives flag `.unreadable` and the error's text as `problem`.
    /// Throws only when the marker's presence cannot be determined.
    static func read(
        group: Container, suite: DefaultsSuite, settings: NudgeSettings, on device: Device
    ) throws -> (snapshot: WidgetSnapshot, problem: String?, markerProblem: String?) {
        let marker = "\(group.relativePath)/\(settings.markerFileName)"
        let (markerPresent, markerProblem) = try device.markerPresence(marker)
        let values: [String: Any]
        do {
            values = try suite.dictionary()
        } catch {
            return (WidgetSnapshot(markerPresent: markerPresent, flag: .unreadable), "\(error)", markerProblem)
        }
        let snapshot = WidgetSnapshot(markerPresent: markerPresent, flag: flag(from: values[settings.flagKey]))
        return (snapshot, nil, markerProblem)
    }
}
