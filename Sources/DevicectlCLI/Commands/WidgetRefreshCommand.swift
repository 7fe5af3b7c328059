// WidgetRefreshCommand: `devicectl widget-refresh`.
import DeviceKit
import Foundation

enum WidgetRefreshCommand: Command {
    static let spec = CommandSpec(
        name: "widget-refresh", summary: "Run the timeline refresh of every widget on the home screen.",
        positionals: [PositionalSpec("ROOT", help: "The device root.")],
        options: [nowOption, jsonOption]
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        throw NotImplemented(command: spec.name)
    }
}
