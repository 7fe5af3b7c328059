// WidgetAddCommand: `devicectl widget add`.
import DeviceKit
import Foundation

enum WidgetAddCommand: Command {
    static let spec = CommandSpec(
        name: "widget add", summary: "Place an app's widget on the home screen.",
        positionals: [PositionalSpec("ROOT", help: "The device root.")],
        options: [OptionSpec(["--app"], .value("BUNDLE_ID"), help: "The app whose widget to place (required).")]
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        throw NotImplemented(command: spec.name)
    }
}
