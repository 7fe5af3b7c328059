// NotificationsCommand+JSON: `notifications --json` (docs/JSON.md).
import DeviceKit
import Foundation

extension NotificationsCommand {
    /// `notifications --json`.
    struct Result: Encodable {
        /// The time the states are shown at (`--now`, or the device's clock when that is later).
        var now: Date
        var notifications: [Notification]
    }

    /// One notification and its state at `now`.
    struct Notification: Encodable {
        var id: String
        var app: String
        var title: String
        var body: String
        var fireDate: Date
        var state: String
        var tapped: Bool
        @OrNull var tappedAt: Date?

        init(_ notification: LocalNotification, at now: Date) {
            id = notification.id
            app = notification.app
            title = notification.title
            body = notification.body
            fireDate = notification.fireDate
            state = notification.state(at: now).rawValue
            tapped = notification.tappedAt != nil
            tappedAt = notification.tappedAt
        }
    }
}
