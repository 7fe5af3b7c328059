// WidgetListCommand: `devicectl widget list`: every widget placed on the home screen, in refresh order.
import DeviceKit
import Foundation

enum WidgetListCommand: Command {
    static let spec = CommandSpec(
        name: "widget list", summary: "List the widgets on the home screen.",
        positionals: [PositionalSpec("ROOT", help: "The device root.")],
        options: [lockTimeoutOption, jsonOption],
        discussion: """
            One line per placed widget, in the order widget-refresh runs them: pages in order (a stack's
            widgets in stack order), then the Today view.
            JSON: {"widgets":[{"place","page"|null,"app"|null,"extensionId","kind","size","id","stack"|null}]}
            Example: devicectl widget list /tmp/phone --json
            """
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let root = try DeviceArguments.root(arguments)
        let device = try DeviceArguments.open(root, arguments, context)
        let widgets = try device.withLock { () throws -> [PlacedWidget] in try device.homeScreen().placedWidgets }
        context.console.listing(
            json: arguments.flag("--json"), Listing(widgets: widgets),
            lines: {
                widgets.map { widget in
                    "\(widget.placeText): \(widget.app ?? "?") \(widget.kind) \(widget.size) (id \(widget.id)"
                        + (widget.stack.map { ", stack \($0)" } ?? "") + ")"
                }
            }, none: "no widgets on the home screen")
        return 0
    }

    /// `--json`: `{"widgets":[...]}`.
    struct Listing: Encodable {
        let widgets: [PlacedWidget]
    }
}
