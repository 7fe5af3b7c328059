// InitCommand: `devicectl init`.
import DeviceKit
import Foundation

enum InitCommand: Command {
    static let spec = CommandSpec(
        name: "init", summary: "Create a fresh device root with its own identity.",
        positionals: [PositionalSpec("ROOT", help: "The device root to create (absent or empty).")],
        options: [jsonOption]
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        throw NotImplemented(command: spec.name)
    }
}
