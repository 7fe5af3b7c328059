// ExcludeCommand: `devicectl exclude add|remove|check`, like `tmutil addexclusion|removeexclusion|isexcluded`.
import DeviceKit
import Foundation

enum ExcludeCommand {
    static let paths = PositionalSpec("PATH", help: "Files or directories.", variadic: true)

    enum Add: Command {
        static let spec = CommandSpec(
            name: "exclude add", summary: "Mark paths excluded from backup (Apple's exclusion xattr).",
            positionals: [paths])

        static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
            throw NotImplemented(command: spec.name)
        }
    }

    enum Remove: Command {
        static let spec = CommandSpec(
            name: "exclude remove", summary: "Clear the exclusion xattr from paths.",
            positionals: [paths])

        static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
            throw NotImplemented(command: spec.name)
        }
    }
}
