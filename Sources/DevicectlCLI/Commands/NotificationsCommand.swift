// NotificationsCommand: `devicectl notifications`.
import DeviceKit
import Foundation

enum NotificationsCommand: Command {
    static let spec = CommandSpec(
        name: "notifications", summary: "List notifications with their state as of now.",
        positionals: [PositionalSpec("ROOT", help: "The device root.")],
        options: [nowOption, jsonOption]
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        throw NotImplemented(command: spec.name)
    }
}
