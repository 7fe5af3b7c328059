// EventsCommand: `devicectl events`.
import DeviceKit
import Foundation

enum EventsCommand: Command {
    static let spec = CommandSpec(
        name: "events", summary: "Print the device's event log, oldest first.",
        positionals: [PositionalSpec("ROOT", help: "The device root.")],
        options: [jsonOption]
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        throw NotImplemented(command: spec.name)
    }
}
