// ListCommand: `devicectl list`.
import DeviceKit
import Foundation

enum ListCommand: Command {
    static let spec = CommandSpec(
        name: "list", summary: "List an archive's members and its manifest summary.",
        positionals: [PositionalSpec("ARCHIVE", help: "The archive, or - for stdin.")],
        options: [jsonOption]
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        throw NotImplemented(command: spec.name)
    }
}
