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
        // Read everything first: an unknown app or a malformed plist fails before anything is written. Each kind
        // of container is listed once.
        var index = ContainerIndex(device: self)
        guard let app = try apps(using: &index).first(where: { $0.bundleId == bundleId }) else {
            throw DeviceError.unknownApp(bundleId)
        }
        let token = DeviceToken.derive(udid: try identity().udid, bundleId: bundleId)
        let log = EventLog(device: self)
        let notifications = NotificationStore(device: self)
        _ = try log.events()
        _ = try notifications.all()
        var shared: (suite: DefaultsSuite, marker: String, flagKey: String)?
        if let widget = app.widget {
            guard let groupId = app.groups.first else { throw DeviceError.noGroup(app: bundleId) }
            guard let group = try index.container(.group, identifier: groupId) else {
                throw DeviceError.unknownGroup(groupId)
            }
            let suite = try index.defaults(groupId)
            _ = try suite.dictionary()
            shared = (suite, "\(group.relativePath)/\(widget.markerFileName)", widget.flagKey)
        }
        try notifications.settle(at: now)
        // The marker first, flagged, so a file system without user xattrs fails before anything is logged.
        if let shared { try createMarker(shared.marker) }
        try log.append(DeviceEvent(time: now, type: "launch", app: bundleId, details: ["source": source.rawValue]))
        if let shared { try shared.suite.set(shared.flagKey, to: true) }
        let cancelled = try notifications.cancelPending(app: bundleId, at: now)
        try log.append(DeviceEvent(time: now, type: "device-token-sent", app: bundleId, details: ["token": token]))
        return LaunchResult(
            app: bundleId, deviceToken: token, markerPath: shared.map { path($0.marker) },
            cancelledNotifications: cancelled)
    }

    /// Creates the empty marker file (or keeps the one there) and sets the exclusion flag on it; a marker this
    /// call created is removed again when the flag cannot be set. Anything but a regular file there is refused.
    private func createMarker(_ relative: String) throws {
        let created = try openMarker(relative)
        do {
            try BackupExclusion.add(relative, in: directory)
        } catch {
            if created { try? directory.remove(relative) }
            throw error
        }
    }

    /// Creates the marker when missing (true) or checks that the one there is a regular file (false).
    private func openMarker(_ relative: String) throws -> Bool {
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW
        switch Result(catching: { () throws(SystemError) in try directory.open(relative, flags: flags, mode: 0o644) }) {
        case .success(let file):
            try file.close()
            return true
        case .failure(let error) where error.code == EEXIST:
            guard try directory.status(relative)?.kind == .regular else {
                throw DeviceError.malformedFile(path: path(relative), reason: "the marker is not a regular file")
            }
            return false
        case .failure(let error):
            throw error
        }
    }

    /// The last device token `bundleId` sent from this device, from the event log.
    public func lastDeviceToken(_ bundleId: String) throws -> String? {
        try EventLog(device: self).events().last { $0.type == "device-token-sent" && $0.app == bundleId }?.details["token"]
    }
}
