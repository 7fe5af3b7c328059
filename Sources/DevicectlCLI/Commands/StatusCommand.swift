// StatusCommand: `devicectl status`: identity, apps, groups, widgets, markers, flags, notifications, tokens.
import DeviceKit
import Foundation

enum StatusCommand: Command {
    static let spec = CommandSpec(
        name: "status", summary: "Show the device: identity, apps, groups, widgets, markers, flags.",
        positionals: [PositionalSpec("ROOT", help: "The device root.")],
        options: [nowOption, jsonOption],
        discussion: """
            Per app: its groups, widget settings, whether the marker is present (and excluded from backup),
            the flag's value, notifications by state as of --now, and the last device token it sent.
            Reads only; changes nothing. A --now before the device's clock (its latest event) is refused.
            Example: devicectl status /tmp/phone --json
            """
    )

    /// What `status` was asked to do.
    struct Options: Equatable {
        var root: String
        var json: Bool
    }

    static func options(_ arguments: ParsedArguments) throws(UsageError) -> Options {
        Options(root: try DeviceArguments.root(arguments), json: arguments.flag("--json"))
    }

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let options = try options(arguments)
        let (device, now) = try DeviceArguments.openForReading(arguments, context)
        let report = try StatusReport(device: device, now: now)
        for problem in report.problems { context.console.warn(problem) }
        if options.json {
            context.console.result(Result(report))
        } else {
            for line in report.lines { context.console.out(line) }
        }
        return 0
    }
}
