// StatusCommand+JSON: `status --json`, and the widget settings object `install --json` shares (docs/JSON.md).
import DeviceKit
import Foundation

extension StatusCommand {
    /// `status --json`.
    struct Result: Encodable {
        /// One group container and the apps that use it.
        struct Group: Encodable {
            var id: String
            var container: String
            var apps: [String]
        }

        /// One widget on the home screen, in order.
        struct PlacedWidget: Encodable {
            var app: String
        }

        var root: String
        var udid: String
        var created: Date
        var now: Date
        var apps: [App]
        var groups: [Group]
        var widgets: [PlacedWidget]

        init(_ report: StatusReport) {
            root = report.device.root
            udid = report.identity.udid
            created = report.identity.created
            now = report.now
            apps = report.apps.map(App.init)
            groups = report.groups.map {
                Group(id: $0.container.identifier, container: $0.container.relativePath, apps: $0.members)
            }
            widgets = report.widgets.map(PlacedWidget.init)
        }
    }

    /// One app as `status` shows it.
    struct App: Encodable {
        /// Notifications by state.
        struct NotificationCounts: Encodable {
            var pending: Int
            var delivered: Int
            var cancelled: Int
        }

        var bundleId: String
        var name: String
        var groups: [String]
        var bundleContainer: String
        var dataContainer: String
        @OrNull var widget: WidgetSettings?
        var widgetPlaced: Bool
        @OrNull var markerPath: String?
        @OrNull var markerPresent: Bool?
        @OrNull var markerExcluded: Bool?
        @OrNull var flag: JSONValue?
        var notifications: NotificationCounts
        @OrNull var lastDeviceToken: String?

        init(_ status: AppStatus) {
            let app = status.app
            let hasMarker = status.markerPath != nil
            bundleId = app.bundleId
            name = app.name
            groups = app.groups
            bundleContainer = app.bundleContainer.relativePath
            dataContainer = app.dataContainer.relativePath
            widget = app.widget.map(WidgetSettings.init)
            widgetPlaced = status.widgetPlaced
            markerPath = status.markerPath
            markerPresent = hasMarker ? status.markerPresent : nil
            markerExcluded = hasMarker ? status.markerExcluded : nil
            flag = status.flag.map(JSONValue.init(plist:))
            notifications = NotificationCounts(
                pending: status.notifications[.pending] ?? 0, delivered: status.notifications[.delivered] ?? 0,
                cancelled: status.notifications[.cancelled] ?? 0)
            lastDeviceToken = status.lastDeviceToken
        }
    }

    /// An app's nudge widget settings (the NudgeSettings field names).
    struct WidgetSettings: Encodable {
        var policy: String
        var delaySeconds: Double
        var title: String
        var body: String
        var markerFileName: String
        var flagKey: String

        init(_ settings: NudgeSettings) {
            policy = settings.policy.rawValue
            delaySeconds = settings.delaySeconds
            title = settings.title
            body = settings.body
            markerFileName = settings.markerFileName
            flagKey = settings.flagKey
        }
    }
}
