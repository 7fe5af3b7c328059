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
        let device = try DeviceArguments.open(options.root, arguments, context)
        let now = try DeviceArguments.readingTime(device, try context.now(arguments), arguments, context)
        let report = try StatusReport(device: device, now: now)
        for problem in report.problems { context.console.warn(problem) }
        if options.json {
            context.console.json(report.json)
        } else {
            for line in report.lines { context.console.out(line) }
        }
        return 0
    }

    /// Widget settings as JSON (the NudgeSettings field names).
    static func json(settings: NudgeSettings) -> [String: Any] {
        [
            "policy": settings.policy.rawValue, "delaySeconds": settings.delaySeconds, "title": settings.title,
            "body": settings.body, "markerFileName": settings.markerFileName, "flagKey": settings.flagKey,
        ]
    }

    /// A property-list value as JSON: booleans stay booleans, dates become ISO-8601, data base64.
    static func json(plist value: Any) -> Any {
        if type(of: value) == Bool.self { return value }
        switch value {
        case let string as String: return string
        case let date as Date: return Timestamp.format(date)
        case let data as Data: return data.base64EncodedString()
        case let array as [Any]: return array.map { json(plist: $0) }
        case let dictionary as [String: Any]: return dictionary.mapValues { json(plist: $0) }
        case let number as NSNumber:
            let text = DefaultsCommand.Format.numberText(number)
            return Int64(text).map { $0 as Any } ?? number.doubleValue
        default: return String(describing: value)
        }
    }
}
