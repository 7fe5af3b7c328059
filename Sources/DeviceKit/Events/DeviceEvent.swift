// DeviceEvent: one entry of the device's event log.
import Foundation

/// Something that happened on the device: a launch, a token sent, a widget decision, a notification
/// scheduled/cancelled/delivered/tapped, a backup or a restore.
public struct DeviceEvent: Codable, Sendable, Equatable {
    /// ISO-8601 time of the event.
    public var time: String
    /// e.g. `launch`, `device-token-sent`, `widget-decision`, `notification-scheduled`,
    /// `notification-cancelled`, `notification-delivered`, `notification-tapped`, `backup`, `restore`, `init`.
    public var type: String
    public var app: String?
    /// Event-specific fields (source, token, decision, reason, notification id, archive ...).
    public var details: [String: String]

    public init(time: Date, type: String, app: String? = nil, details: [String: String] = [:]) {
        self.time = Timestamp.format(time)
        self.type = type
        self.app = app
        self.details = details
    }

    /// An event as the log holds it (`time` as written).
    init(recorded time: String, type: String, app: String?, details: [String: String]) {
        self.time = time
        self.type = type
        self.app = app
        self.details = details
    }
}
