// LaunchCommand+JSON: `launch --json` and `tap --json` (docs/JSON.md).
import DeviceKit

extension LaunchCommand {
    /// `launch --json`; `tap --json` adds the notification it opened.
    struct Result: Encodable {
        var app: String
        /// `home-screen` for `launch`, `notification` for `tap`.
        var source: String
        var deviceToken: String
        /// The marker created, relative to ROOT; nil (null) for an app without the widget.
        @OrNull var markerPath: String?
        var cancelledNotifications: [String]
        /// The notification `tap` opened; nil (null) for `launch`.
        @OrNull var notification: String?

        init(_ result: LaunchResult, source: Device.LaunchSource, device: Device, notification: String? = nil) {
            app = result.app
            self.source = source.rawValue
            deviceToken = result.deviceToken
            markerPath = result.markerPath.map { DeviceArguments.relative($0, to: device) }
            cancelledNotifications = result.cancelledNotifications
            self.notification = notification
        }
    }
}
