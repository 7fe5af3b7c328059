// InstallCommand+Report: what an install created, kept or shared, for the human and JSON output.
import DeviceKit
import Foundation

extension InstallCommand {
    /// The outcome of one install: the app as installed and what happened to each container.
    struct InstallReport {
        enum Status: String {
            case created, kept, shared
        }

        let app: InstalledApp
        let reinstalled: Bool
        let dataStatus: Status
        let groups: [(container: Container, status: Status, sharedWith: [String])]
        let pluginContainer: Container?

        /// Installs `request` on `device`, noting which containers existed before.
        static func install(_ request: AppInstallation, on device: Device) throws -> InstallReport {
            let before = try device.apps()
            let reinstalled = before.contains { $0.bundleId == request.bundleId }
            let hadData = try device.container(.data, identifier: request.bundleId) != nil
            let existingGroups = Set(try device.containers(.group).map(\.identifier))
            let app = try device.install(request)
            var groups: [(Container, Status, [String])] = []
            for groupId in app.groups {
                let container = try device.groupContainer(groupId)
                let others = before.filter { $0.bundleId != app.bundleId && $0.groups.contains(groupId) }.map(
                    \.bundleId)
                let status: Status = !existingGroups.contains(groupId) ? .created : others.isEmpty ? .kept : .shared
                groups.append((container, status, others))
            }
            let plugin = app.widget == nil ? nil : try device.container(.plugin, identifier: app.widgetExtensionId)
            return InstallReport(
                app: app, reinstalled: reinstalled, dataStatus: hadData ? .kept : .created, groups: groups,
                pluginContainer: plugin)
        }

        var lines: [String] {
            var lines = ["\(reinstalled ? "reinstalled" : "installed") \(app.bundleId) (\(app.name))"]
            lines.append("  bundle container  \(app.bundleContainer.relativePath)")
            lines.append("  data container    \(app.dataContainer.relativePath) (\(dataStatus.rawValue))")
            for group in groups {
                var note = group.status.rawValue
                if group.status == .shared { note += " with " + group.sharedWith.joined(separator: ", ") }
                lines.append(
                    "  App Group         \(group.container.identifier) \(group.container.relativePath) (\(note))")
            }
            if let widget = app.widget {
                lines.append(
                    "  nudge widget      policy \(widget.policy.rawValue), delay \(widget.delayText), "
                        + "marker \(widget.markerFileName), flag \(widget.flagKey)")
                if let plugin = pluginContainer {
                    lines.append("  widget extension  \(plugin.identifier) \(plugin.relativePath)")
                }
            } else {
                lines.append("  nudge widget      none")
            }
            return lines
        }
    }
}
