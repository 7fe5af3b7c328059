// UninstallCommand: `devicectl uninstall`: remove an app, its containers, icon and widgets.
import DeviceKit
import Foundation

enum UninstallCommand: Command {
    static let spec = CommandSpec(
        name: "uninstall", summary: "Remove an app: its containers, home-screen icon and widgets.",
        positionals: [PositionalSpec("ROOT", help: "The device root.")],
        options: [
            OptionSpec(["--app"], .value("BUNDLE_ID"), help: "The app to remove (required)."),
            lockTimeoutOption,
        ],
        discussion: """
            As iOS deletes an app: its bundle, data and widget-extension containers go, and each App Group
            container that no other installed app belongs to. Its icon and widgets leave the home screen.
            Example: devicectl uninstall /tmp/phone --app com.example.news
            """
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let root = try DeviceArguments.root(arguments)
        let app = try DeviceArguments.requiredIdentifier("--app", arguments)
        let device = try DeviceArguments.open(root, arguments, context)
        let groups = try device.withLock { () throws -> [String] in
            try device.validate()
            return try device.uninstall(app)
        }
        context.console.out(
            "uninstalled \(app)" + (groups.isEmpty ? "" : " (App Groups removed: \(groups.joined(separator: ", ")))"))
        return 0
    }
}
