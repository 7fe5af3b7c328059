// WidgetRemoveCommand: `devicectl widget remove`: take an app's widgets off the home screen.
import DeviceKit
import Foundation

enum WidgetRemoveCommand: Command {
    static let spec = CommandSpec(
        name: "widget remove", summary: "Remove an app's widgets from the home screen.",
        positionals: [PositionalSpec("ROOT", help: "The device root.")],
        options: [
            OptionSpec(["--app"], .value("BUNDLE_ID"), help: "The app whose widgets to remove (required)."),
            OptionSpec(["--kind"], .value("KIND"), help: "Only the widgets of this kind."),
            lockTimeoutOption,
        ],
        discussion: """
            Removes the app's widgets from every page, Smart Stack and the Today view (a stack left with one
            widget becomes that widget). Every other key of IconState.plist is kept.
            Example: devicectl widget remove /tmp/phone --app com.example.news
            """
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let root = try DeviceArguments.root(arguments)
        let app = try DeviceArguments.requiredIdentifier("--app", arguments)
        let kind = arguments.value("--kind")
        let device = try DeviceArguments.open(root, arguments, context)
        let removed = try device.withLock { () throws -> Int in
            try device.validate()
            var layout = try device.homeScreen()
            let removed = layout.removeWidgets(app: app, kind: kind)
            guard removed > 0 else { throw HomeScreenError.notPlaced(app: app, kind: kind) }
            try device.save(layout)
            return removed
        }
        context.console.out("removed \(removed) widget\(removed == 1 ? "" : "s") of \(app) from the home screen")
        return 0
    }
}
