// WidgetRefreshCommand+JSON: `widget-refresh --json` (docs/JSON.md).
import DeviceKit
import Foundation
import NudgeWidget

extension WidgetRefreshCommand {
    /// `widget-refresh --json`: printed even when a widget failed (exit 1 and an error line then).
    struct Result: Encodable {
        var widgets: [Widget]
    }

    /// One widget's refresh.
    struct Widget: Encodable {
        var app: String
        var decision: String
        var reason: String
        @OrNull var fireDate: Date?
        @OrNull var notification: String?
        /// Whether the refresh failed (its shared defaults could not be read; the warning says why).
        var failed: Bool

        init(_ result: WidgetRefreshResult) {
            app = result.app
            decision = result.decision.outcome.rawValue
            reason = result.decision.reason.rawValue
            fireDate = result.decision.fireDate
            notification = result.notificationId
            failed = result.failed
        }
    }
}
