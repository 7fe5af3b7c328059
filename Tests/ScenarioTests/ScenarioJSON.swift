// ScenarioJSON: what the scenarios decode from devicectl's --json output (the README's documented keys).
import Foundation

/// One widget's outcome in `widget-refresh --json`.
struct WidgetDecision: Decodable, Equatable, Sendable {
    let app: String
    let decision: String
    let reason: String
    let fireDate: String?
    let notification: String?
}

struct WidgetRefreshOutput: Decodable { let widgets: [WidgetDecision] }

/// One local notification in `notifications --json`.
struct Notification: Decodable, Equatable, Sendable {
    let id: String
    let app: String
    let title: String
    let body: String
    let fireDate: String
    let state: String
    let tapped: Bool
}

struct NotificationsOutput: Decodable { let notifications: [Notification] }

/// One entry of the device's event log (`events --json`).
struct Event: Decodable, Equatable, Sendable {
    let time: String
    let type: String
    let app: String?
    let details: [String: String]
}

struct EventsOutput: Decodable { let events: [Event] }

/// `status --json`: the parts the scenarios look at.
struct DeviceStatus: Decodable, Sendable {
    struct App: Decodable, Equatable, Sendable {
        let bundleId: String
        let groups: [String]
        let widgetPlaced: Bool
        let markerPresent: Bool?
        let markerExcluded: Bool?
        let flag: FlagValue?
        let lastDeviceToken: String?
    }
    struct Group: Decodable, Sendable {
        let id: String
        let container: String
        let apps: [String]
    }
    struct Widget: Decodable, Sendable { let app: String }

    let udid: String
    let apps: [App]
    let groups: [Group]
    let widgets: [Widget]

    func app(_ bundleId: String) -> App? { apps.first { $0.bundleId == bundleId } }
}

/// A defaults value as `status --json` prints it: the flag is a boolean when the app set it.
enum FlagValue: Decodable, Equatable, Sendable {
    case bool(Bool)
    case number(Double)
    case string(String)

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }
}

/// `launch --json` and `tap --json`: the device token the app sent and the nudges the launch cancelled.
struct LaunchOutput: Decodable {
    let deviceToken: String
    let cancelled: [String]?
    let cancelledNotifications: [String]?
}
