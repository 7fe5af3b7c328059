// InstallCommand: `devicectl install`.
import DeviceKit
import Foundation

enum InstallCommand: Command {
    static let spec = CommandSpec(
        name: "install", summary: "Install an app: bundle, data and App Group containers.",
        positionals: [PositionalSpec("ROOT", help: "The device root.")],
        options: [
            OptionSpec(["--app"], .value("BUNDLE_ID"), help: "The app's bundle identifier (required)."),
            OptionSpec(["--group"], .value("GROUP_ID"), repeatable: true, help: "An App Group the app belongs to (repeatable)."),
            OptionSpec(["--nudge-policy"], .value("once|as-published"), help: "When the widget clears its flag (default once)."),
            OptionSpec(["--nudge-delay"], .value("DURATION"), help: "Delay before the nudge fires, e.g. 24h, 90m, 0s (default 24h)."),
            OptionSpec(["--nudge-title"], .value("TEXT"), help: "The nudge notification's title."),
            OptionSpec(["--nudge-body"], .value("TEXT"), help: "The nudge notification's body."),
            OptionSpec(["--marker-name"], .value("NAME"), help: "The marker file name (default device-restoration-marker.txt)."),
            OptionSpec(["--flag-key"], .value("KEY"), help: "The shared defaults flag key (default notificationEnabled)."),
            OptionSpec(["--no-widget"], help: "The app has no nudge widget."),
        ]
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        throw NotImplemented(command: spec.name)
    }
}
