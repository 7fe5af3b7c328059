// LaunchCommand: `devicectl launch`.
import DeviceKit
import Foundation

enum LaunchCommand: Command {
    static let spec = CommandSpec(
        name: "launch", summary: "Launch an app: write the marker and flag, send the device token.",
        positionals: [PositionalSpec("ROOT", help: "The device root.")],
        options: [OptionSpec(["--app"], .value("BUNDLE_ID"), help: "The app to launch (required)."), nowOption, jsonOption]
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        throw NotImplemented(command: spec.name)
    }
}
