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
    /// The details the scenarios compare, as text (the JSON types them: integers, booleans, arrays).
    let details: [String: String]

    private enum Keys: String, CodingKey { case time, type, app, details }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        time = try container.decode(String.self, forKey: .time)
        type = try container.decode(String.self, forKey: .type)
        app = try container.decodeIfPresent(String.self, forKey: .app)
        details = try container.decode([String: EventDetail].self, forKey: .details).mapValues(\.text)
    }
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

/// One event detail as text: a string as it is, a boolean, integer or array of strings as the log writes it.
struct EventDetail: Decodable, Sendable {
    let text: String

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let bool = try? container.decode(Bool.self) {
            text = String(bool)
        } else if let integer = try? container.decode(Int64.self) {
            text = String(integer)
        } else if let strings = try? container.decode([String].self) {
            text = strings.joined(separator: ",")
        } else {
            text = try container.decode(String.self)
        }
    }
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
    let cancelledNotifications: [String]
}
