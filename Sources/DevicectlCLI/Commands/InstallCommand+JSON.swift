// InstallCommand+JSON: `install --json` (docs/JSON.md).
import DeviceKit

extension InstallCommand {
    /// `install --json`.
    struct Result: Encodable {
        /// One App Group container of the app and what the install did to it.
        struct Group: Encodable {
            var id: String
            var container: String
            var status: String
            var sharedWith: [String]
        }

        var app: String
        var name: String
        var reinstalled: Bool
        var bundleContainer: String
        var dataContainer: String
        var dataContainerStatus: String
        var groups: [Group]
        @OrNull var widget: StatusCommand.WidgetSettings?
        @OrNull var widgetExtensionContainer: String?

        init(_ report: InstallReport) {
            app = report.app.bundleId
            name = report.app.name
            reinstalled = report.reinstalled
            bundleContainer = report.app.bundleContainer.relativePath
            dataContainer = report.app.dataContainer.relativePath
            dataContainerStatus = report.dataStatus.rawValue
            groups = report.groups.map {
                Group(
                    id: $0.container.identifier, container: $0.container.relativePath, status: $0.status.rawValue,
                    sharedWith: $0.sharedWith)
            }
            widget = report.app.widget.map(StatusCommand.WidgetSettings.init)
            widgetExtensionContainer = report.pluginContainer?.relativePath
        }
    }
}
