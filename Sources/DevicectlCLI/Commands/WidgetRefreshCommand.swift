// WidgetRefreshCommand: `devicectl widget-refresh`: every placed widget's timeline refresh, in order.
import DeviceKit
import Foundation
import NudgeWidget

enum WidgetRefreshCommand: Command {
    static let spec = CommandSpec(
        name: "widget-refresh", summary: "Run the timeline refresh of every widget on the home screen.",
        positionals: [PositionalSpec("ROOT", help: "The device root.")],
        options: [nowOption, lockTimeoutOption, jsonOption],
        discussion: """
            Each widget decides as the seed's getTimeline does: marker present -> none (marker-present);
            marker absent and flag not true -> none (not-armed); marker absent and flag true -> schedule one
            notification after the app's nudge delay and clear the flag (restored). Policy as-published also
            writes false to the flag on every refresh. A widget whose shared defaults cannot be read gets
            none (defaults-unreadable) and a warning; the others still run and the exit status is 1.
            JSON: {"widgets":[{"app","decision":"scheduled"|"none","reason",
                               "fireDate":ISO|null,"notification":ID|null,"failed"}]}
            Example: devicectl widget-refresh /tmp/phone --now 2026-12-01T10:00:00Z
            """
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let root = try DeviceArguments.root(arguments)
        let now = try context.now(arguments)
        let device = try DeviceArguments.open(root, arguments, context)
        let results = try device.withLock { () throws -> [WidgetRefreshResult] in
            // Validated first (nothing written if a plist is malformed); the refresh reuses what that read.
            var index = ContainerIndex(device: device)
            let state = try device.validatedState(using: &index)
            try DeviceArguments.checkClock(device, now, arguments, context)
            return try WidgetRefresher(device: device).refreshAll(at: now, apps: state.apps, index: &index)
        }
        for problem in results.compactMap(\.problem) { context.console.warn(problem) }
        context.console.listing(
            json: arguments.flag("--json"), Result(widgets: results.map(Widget.init)), lines: { results.map(line) },
            none: "no widgets on the home screen")
        let failed = results.filter(\.failed)
        guard failed.isEmpty else {
            let apps = failed.map(\.app).joined(separator: ", ")
            context.console.failure(
                "\(failed.count) of \(results.count) widgets could not be refreshed: \(apps)", exitStatus: 1)
            return 1
        }
        return 0
    }

    /// `com.example.news: scheduled (restored): notification N1-… fires 2026-12-02T09:00:00Z`.
    static func line(_ result: WidgetRefreshResult) -> String {
        var text = "\(result.app): \(result.decision.outcome.rawValue) (\(result.decision.reason.rawValue))"
        if let id = result.notificationId, let fireDate = result.decision.fireDate {
            text += ": notification \(id) fires \(Timestamp.format(fireDate))"
        }
        return text
    }
}
