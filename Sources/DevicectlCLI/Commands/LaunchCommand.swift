// LaunchCommand: `devicectl launch`: what the seed's app does at launch, ending with its device token.
import DeviceKit
import Foundation

enum LaunchCommand: Command {
    static let spec = CommandSpec(
        name: "launch", summary: "Launch an app: write the marker and flag, send the device token.",
        positionals: [PositionalSpec("ROOT", help: "The device root.")],
        options: [
            OptionSpec(["--app"], .value("BUNDLE_ID"), help: "The app to launch (required)."), nowOption,
            lockTimeoutOption, quietOption,
            jsonOption,
        ],
        discussion: """
            Creates the empty marker in the app's first App Group container and marks it excluded from
            backup, sets the flag to true in the group's shared defaults, cancels the app's pending nudge,
            and sends the device token, printed as the last word of the output.
            Example: devicectl launch /tmp/phone --app com.example.news --now 2026-12-01T09:00:00Z
            """
    )

    /// What `launch` was asked to do.
    struct Options: Equatable {
        var root: String
        var app: String
        var json: Bool
    }

    static func options(_ arguments: ParsedArguments) throws(UsageError) -> Options {
        Options(
            root: try DeviceArguments.root(arguments), app: try DeviceArguments.requiredIdentifier("--app", arguments),
            json: arguments.flag("--json"))
    }

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let options = try options(arguments)
        let now = try context.now(arguments)
        let device = try DeviceArguments.open(options.root, arguments, context)
        let (result, app) = try device.withLock { () throws -> (LaunchResult, InstalledApp) in
            try device.validate()
            try DeviceArguments.checkClock(device, now, arguments, context)
            return (try device.launch(options.app, at: now), try device.app(options.app))
        }
        if options.json {
            context.console.result(Result(result, source: .homeScreen, device: device))
            return 0
        }
        let console = context.console
        console.out("launched \(result.app) at \(Timestamp.format(now))")
        if let marker = result.markerPath, let widget = app.widget, let group = app.groups.first {
            console.out("marker: \(DeviceArguments.relative(marker, to: device)) (excluded from backup)")
            console.out("flag: \(widget.flagKey) = 1 in \(group)")
        }
        for id in result.cancelledNotifications { console.out("cancelled pending notification \(id)") }
        console.out("device token sent: \(result.deviceToken)")
        return 0
    }
}
