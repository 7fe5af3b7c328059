// EventsCommand+JSON: `events --json`, with each detail typed (docs/JSON.md lists them per event type).
import DeviceKit
import Foundation

extension EventsCommand {
    /// `events --json`.
    struct Result: Encodable {
        var events: [Event]
    }

    /// One logged event. The log keeps details as text; they are shown typed: counts as integers, yes/no
    /// fields as booleans, the restored apps as an array. A value the log holds in another form stays text.
    struct Event: Encodable {
        var time: String
        var type: String
        @OrNull var app: String?
        var details: [String: JSONValue]

        init(_ event: DeviceEvent) {
            time = event.time
            type = event.type
            app = event.app
            details = event.details.reduce(into: [:]) { typed, pair in
                let (key, value) = Self.typed(pair.key, pair.value, in: event.type)
                typed[key] = value
            }
        }

        /// Detail keys holding counts.
        static let integerKeys: Set = ["files", "bytes", "archiveBytes"]
        /// Detail keys holding `true` or `false`.
        static let booleanKeys: Set = ["verified", "flagCleared"]

        /// The key and typed value the JSON shows for one logged detail.
        static func typed(_ key: String, _ text: String, in type: String) -> (String, JSONValue) {
            if type == "restore" && key == "source" { return ("sourceUdid", .string(text)) }
            if type == "restore" && key == "apps" {
                return (key, .array(text.split(separator: ",").map { .string(String($0)) }))
            }
            if integerKeys.contains(key), let value = UInt64(text), let integer = Int64(exactly: value) {
                return (key, .integer(integer))
            }
            if booleanKeys.contains(key), let value = Bool(text) { return (key, .bool(value)) }
            return (key, .string(text))
        }
    }
}
