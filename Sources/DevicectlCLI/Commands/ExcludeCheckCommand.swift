// ExcludeCheckCommand: `devicectl exclude check`, like `tmutil isexcluded`, sharing BackupKit's rules.
import BackupKit
import Foundation

extension ExcludeCommand {
    enum Check: Command {
        static let spec = CommandSpec(
            name: "exclude check", summary: "Tell whether a backup would skip each path, with every reason.",
            positionals: [paths], options: [jsonOption])

        static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
            throw NotImplemented(command: spec.name)
        }
    }
}
