// Device+Launch: what the seed's app does at launch.
import Foundation
import Glibc
import SystemKit

/// What a launch did.
public struct LaunchResult: Sendable, Equatable {
    public let app: String
    public let deviceToken: String
    /// The marker file's path (nil for an app without the nudge widget).
    public let markerPath: String?
    /// Pending nudges the launch cancelled.
    public let cancelledNotifications: [String]
}

extension Device {
    /// How an app was launched.
    public enum LaunchSource: String, Sendable {
        case homeScreen = "home-screen"
        case notification
    }

    /// Launches `bundleId` at `now`, as the seed's app does: creates the empty marker in its first App
    /// Group container and marks it excluded from backup (every launch: the flag can be lost on rewrite),
    /// sets the shared defaults flag to true, cancels its pending nudge, and sends its device token.
    public func launch(_ bundleId: String, at now: Date, source: LaunchSource = .homeScreen) throws -> LaunchResult {
        // Read everything first: an unknown app or a malformed plist fails before anything is written.
        let app = try app(bundleId)
        let token = DeviceToken.derive(udid: try identity().udid, bundleId: bundleId)
        let log = EventLog(device: self)
        let notifications = NotificationStore(device: self)
        _ = try log.events()
        _ = try notifications.all()
        var shared: (suite: DefaultsSuite, marker: String, flagKey: String)?
        if let widget = app.widget {
            guard let groupId = app.groups.first else { throw DeviceError.noGroup(app: bundleId) }
            let group = try groupContainer(groupId)
            let suite = try defaults(groupId)
            _ = try suite.dictionary()
            shared = (suite, "\(group.path)/\(widget.markerFileName)", widget.flagKey)
        }
        try notifications.settle(at: now)
        try log.append(DeviceEvent(time: now, type: "launch", app: bundleId, details: ["source": source.rawValue]))
        if let shared {
            let file = try FileDescriptor.open(shared.marker, flags: O_WRONLY | O_CREAT | O_NOFOLLOW, mode: 0o644)
            try file.close()
            try BackupExclusion.add(shared.marker)
            try shared.suite.set(shared.flagKey, to: true)
        }
        let cancelled = try notifications.cancelPending(app: bundleId, at: now)
        try log.append(DeviceEvent(time: now, type: "device-token-sent", app: bundleId, details: ["token": token]))
        return LaunchResult(app: bundleId, deviceToken: token, markerPath: shared?.marker, cancelledNotifications: cancelled)
    }

    /// The last device token `bundleId` sent from this device, from the event log.
    public func lastDeviceToken(_ bundleId: String) throws -> String? {
        try EventLog(device: self).events().last { $0.type == "device-token-sent" && $0.app == bundleId }?.details["token"]
    }
}
