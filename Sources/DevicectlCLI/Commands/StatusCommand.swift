// StatusCommand: `devicectl status`.
import DeviceKit
import Foundation

enum StatusCommand: Command {
    static let spec = CommandSpec(
        name: "status", summary: "Show the device: identity, apps, groups, widgets, markers, flags.",
        positionals: [PositionalSpec("ROOT", help: "The device root.")],
        options: [nowOption, jsonOption]
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        throw NotImplemented(command: spec.name)
    }
}
