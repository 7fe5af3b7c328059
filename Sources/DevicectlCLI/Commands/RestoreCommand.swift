// RestoreCommand: `devicectl restore`.
import DeviceKit
import Foundation

enum RestoreCommand: Command {
    static let spec = CommandSpec(
        name: "restore", summary: "Restore an archive onto a fresh device root, all or nothing.",
        positionals: [
            PositionalSpec("ARCHIVE", help: "The archive, or - for stdin."),
            PositionalSpec("ROOT", help: "A fresh device root, or a path that does not exist yet."),
        ],
        options: [jsonOption] + progressOptions
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        throw NotImplemented(command: spec.name)
    }
}
