// TapCommand: `devicectl tap`.
import DeviceKit
import Foundation

enum TapCommand: Command {
    static let spec = CommandSpec(
        name: "tap", summary: "Open a delivered notification: its app launches.",
        positionals: [PositionalSpec("ROOT", help: "The device root.")],
        options: [OptionSpec(["--notification"], .value("ID"), help: "The notification to tap (required)."), nowOption, jsonOption]
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        throw NotImplemented(command: spec.name)
    }
}
