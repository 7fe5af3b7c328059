// VerifyCommand: `devicectl verify`.
import DeviceKit
import Foundation

enum VerifyCommand: Command {
    static let spec = CommandSpec(
        name: "verify", summary: "Check an archive's structure and every digest against its manifest.",
        positionals: [PositionalSpec("ARCHIVE", help: "The archive, or - for stdin.")],
        options: [jsonOption]
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        throw NotImplemented(command: spec.name)
    }
}
