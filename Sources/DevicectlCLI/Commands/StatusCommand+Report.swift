// StatusCommand+Report: a read-only snapshot of a device for `devicectl status`.
import DeviceKit
import Foundation
import SystemKit

extension StatusCommand {
    /// One app's state on the device.
    struct AppStatus {
        let app: InstalledApp
        let widgetPlaced: Bool
        /// The marker's path relative to ROOT; nil for an app without the widget (or without its group).
        let markerPath: String?
        let markerPresent: Bool
        let markerExcluded: Bool
        /// The flag's value in the first group's shared suite; nil when unset.
        let flag: Any?
        let notifications: [LocalNotification.State: Int]
        let lastDeviceToken: String?
    }

    /// Everything `status` shows, read once.
    struct StatusReport {
        let device: Device
        let identity: DeviceIdentity
        let now: Date
        let apps: [AppStatus]
        let groups: [(container: Container, members: [String])]
        let widgets: [String]
        /// Warnings: what was found where a marker should be, when it is not a regular file.
        let problems: [String]

        init(device: Device, now: Date) throws {
            self.device = device
            self.now = now
            identity = try device.identity()
            // Each kind of container listed once for the whole report.
            var index = ContainerIndex(device: device)
            let installed = try device.apps(using: &index)
            let placed = try device.homeScreen().widgets
            widgets = placed
            let notifications = try NotificationStore(device: device).all()
            let events = try EventLog(device: device).events()
            var problems: [String] = []
            apps = try installed.map { app in
                var markerPath: String?
                var present = false
                var excluded = false
                var flag: Any?
                if let widget = app.widget, let groupId = app.groups.first,
                    let group = try index.container(.group, identifier: groupId)
                {
                    let marker = "\(group.relativePath)/\(widget.markerFileName)"
                    markerPath = marker
                    let presence = try device.markerPresence(marker)
                    present = presence.present
                    if let problem = presence.problem { problems.append("\(app.bundleId): \(problem)") }
                    if present {
                        excluded = try device.directory.attribute(BackupExclusionAttribute.apple, of: marker) != nil
                    }
                    flag = try index.defaults(groupId).value(widget.flagKey)
                }
                var counts: [LocalNotification.State: Int] = [.pending: 0, .delivered: 0, .cancelled: 0]
                for notification in notifications where notification.app == app.bundleId {
                    counts[notification.state(at: now), default: 0] += 1
                }
                let token = events.last { $0.type == "device-token-sent" && $0.app == app.bundleId }?.details["token"]
                return AppStatus(
                    app: app, widgetPlaced: placed.contains(app.bundleId), markerPath: markerPath,
                    markerPresent: present, markerExcluded: excluded, flag: flag, notifications: counts,
                    lastDeviceToken: token)
            }
            self.problems = problems
            groups = try index.containers(.group).map { container in
                (container, installed.filter { $0.groups.contains(container.identifier) }.map(\.bundleId))
            }
        }

        // MARK: - Output

        var lines: [String] {
            var lines = [
                "device \(device.root)",
                "  udid     \(identity.udid)",
                "  created  \(Timestamp.format(identity.created))",
                "apps (\(apps.count))",
            ]
            for status in apps { lines += Self.lines(app: status) }
            lines.append("groups (\(groups.count))")
            for group in groups {
                let members = group.members.isEmpty ? "no app" : group.members.joined(separator: ", ")
                lines.append("  \(group.container.identifier)  \(group.container.relativePath)  (\(members))")
            }
            lines.append("home screen widgets (\(widgets.count))")
            for (index, app) in widgets.enumerated() { lines.append("  \(index + 1). \(app)") }
            return lines
        }

        static func lines(app status: AppStatus) -> [String] {
            let app = status.app
            func row(_ label: String, _ value: String) -> String {
                "    " + label + String(repeating: " ", count: max(1, 15 - label.count)) + value
            }
            var lines = ["  \(app.bundleId) (\(app.name))"]
            lines.append(row("groups", app.groups.isEmpty ? "none" : app.groups.joined(separator: ", ")))
            if let widget = app.widget {
                lines.append(
                    row(
                        "widget",
                        "\(status.widgetPlaced ? "placed" : "not placed"); policy \(widget.policy.rawValue), "
                            + "delay \(widget.delayText), marker \(widget.markerFileName), flag \(widget.flagKey)"))
                let marker =
                    status.markerPresent
                    ? "present\(status.markerExcluded ? " (excluded from backup)" : " (NOT excluded from backup)")"
                    : "absent"
                lines.append(row("marker", "\(marker)  \(status.markerPath ?? "")"))
                let flag = status.flag.map(DefaultsCommand.Format.value) ?? "(not set)"
                lines.append(row("flag", "\(widget.flagKey) = \(flag)"))
            } else {
                lines.append(row("widget", "none"))
            }
            let counts = status.notifications
            lines.append(
                row(
                    "notifications",
                    "\(counts[.pending] ?? 0) pending, \(counts[.delivered] ?? 0) delivered, \(counts[.cancelled] ?? 0) cancelled"
                ))
            lines.append(row("device token", status.lastDeviceToken ?? "never sent"))
            return lines
        }
    }
}
