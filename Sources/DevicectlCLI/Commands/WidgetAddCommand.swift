// WidgetAddCommand: `devicectl widget add`: place an app's widget on the home screen (IconState.plist).
import DeviceKit
import Foundation

enum WidgetAddCommand: Command {
    static let spec = CommandSpec(
        name: "widget add", summary: "Place an app's widget on the home screen.",
        positionals: [PositionalSpec("ROOT", help: "The device root.")],
        options: [
            OptionSpec(["--app"], .value("BUNDLE_ID"), help: "The app whose widget to place (required)."),
            lockTimeoutOption,
        ],
        discussion: """
            The layout lives in ROOT/Library/SpringBoard/IconState.plist, which backups carry, as iOS backs
            up the home screen. Placing a widget that is already placed changes nothing.
            Example: devicectl widget add /tmp/phone --app com.example.news
            """
    )

    /// What `widget add` was asked to do.
    struct Options: Equatable {
        var root: String
        var app: String
    }

    static func options(_ arguments: ParsedArguments) throws(UsageError) -> Options {
        Options(
            root: try DeviceArguments.root(arguments), app: try DeviceArguments.requiredIdentifier("--app", arguments))
    }

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let options = try options(arguments)
        let device = try DeviceArguments.open(options.root, arguments, context)
        let (alreadyPlaced, position) = try device.withLock { () throws -> (Bool, Int) in
            try device.validate()
            let placed = try device.homeScreen().widgets.contains(options.app)
            try device.placeWidget(app: options.app)
            let widgets = try device.homeScreen().widgets
            return (placed, (widgets.firstIndex(of: options.app) ?? widgets.count) + 1)
        }
        let verb = alreadyPlaced ? "is already" : "placed"
        context.console.out("the widget of \(options.app) \(verb) on the home screen (position \(position))")
        return 0
    }
}
