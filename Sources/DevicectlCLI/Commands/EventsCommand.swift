// EventsCommand: `devicectl events`: the device's event log, oldest first.
import DeviceKit
import Foundation

enum EventsCommand: Command {
    static let spec = CommandSpec(
        name: "events", summary: "Print the device's event log, oldest first.",
        positionals: [PositionalSpec("ROOT", help: "The device root.")],
        options: [nowOption, jsonOption],
        discussion: """
            Launches (and their source), device tokens sent, widget decisions, notifications scheduled,
            cancelled, delivered and tapped, backups and restores. Reads only: deliveries due by now are shown
            at their fire dates, and recorded by the next command that writes. A --now before the device's
            clock (its latest event) is refused; DEVICECTL_NOW or the system clock before it shows the log as
            of the device's clock.
            The log is device-local: backups do not carry it.
            JSON: {"events":[{"time","type","app":ID|null,"details":{...}}]}
            Example: devicectl events /tmp/phone --json
            """
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let (device, now) = try DeviceArguments.openForReading(arguments, context)
        let due = try NotificationStore(device: device).dueDeliveries(at: now)
        let events = merged(try EventLog(device: device).events(), due)
        context.console.listing(
            json: arguments.flag("--json"), Result(events: events.map(Event.init)), lines: { events.map(line) },
            none: "no events")
        return 0
    }

    /// `logged` with the deliveries due but not yet logged, by time (a logged event first at equal times).
    static func merged(_ logged: [DeviceEvent], _ due: [DeviceEvent]) -> [DeviceEvent] {
        guard !due.isEmpty else { return logged }
        let all = (logged + due).enumerated().map {
            (offset: $0.offset, time: Timestamp.parse($0.element.time), event: $0.element)
        }
        return all.sorted { a, b in
            let (ta, tb) = (a.time ?? .distantPast, b.time ?? .distantPast)
            return ta != tb ? ta < tb : a.offset < b.offset
        }.map(\.event)
    }

    /// `2026-12-01T09:00:00Z  launch  com.example.news  source=home-screen`.
    static func line(_ event: DeviceEvent) -> String {
        var fields = [event.time, event.type]
        if let app = event.app { fields.append(app) }
        let details = event.details.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        if !details.isEmpty { fields.append(details.joined(separator: " ")) }
        return fields.joined(separator: "  ")
    }
}
