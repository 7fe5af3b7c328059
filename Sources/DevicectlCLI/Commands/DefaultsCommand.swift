// DefaultsCommand: `devicectl defaults read|write|delete`, like macOS `defaults`.
import DeviceKit
import Foundation

enum DefaultsCommand {
    static let domainHelp = "A bundle id (the app's standard suite) or a group id (the shared suite)."

    enum Read: Command {
        static let spec = CommandSpec(
            name: "defaults read", summary: "Print a defaults domain, or one key's value.",
            positionals: [
                PositionalSpec("ROOT", help: "The device root."),
                PositionalSpec("DOMAIN", help: domainHelp),
                PositionalSpec("KEY", help: "The key to print (default: the whole domain).", optional: true),
            ])

        static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
            throw NotImplemented(command: spec.name)
        }
    }

    enum Write: Command {
        static let spec = CommandSpec(
            name: "defaults write", summary: "Set one key in a defaults domain.",
            positionals: [
                PositionalSpec("ROOT", help: "The device root."),
                PositionalSpec("DOMAIN", help: domainHelp),
                PositionalSpec("KEY", help: "The key to set."),
            ],
            options: [
                OptionSpec(["-bool"], .value("true|false"), help: "A boolean value."),
                OptionSpec(["-int"], .value("N"), help: "An integer value."),
                OptionSpec(["-float"], .value("X"), help: "A floating-point value."),
                OptionSpec(["-string"], .value("TEXT"), help: "A string value."),
            ])

        static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
            throw NotImplemented(command: spec.name)
        }
    }

    enum Delete: Command {
        static let spec = CommandSpec(
            name: "defaults delete", summary: "Remove one key (or the whole domain) from defaults.",
            positionals: [
                PositionalSpec("ROOT", help: "The device root."),
                PositionalSpec("DOMAIN", help: domainHelp),
                PositionalSpec("KEY", help: "The key to remove (default: the whole domain).", optional: true),
            ])

        static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
            throw NotImplemented(command: spec.name)
        }
    }
}
