// TapCommand: `devicectl tap`: open a delivered notification, which launches its app.
import DeviceKit
import Foundation

enum TapCommand: Command {
    static let spec = CommandSpec(
        name: "tap", summary: "Open a delivered notification: its app launches.",
        positionals: [PositionalSpec("ROOT", help: "The device root.")],
        options: [
            OptionSpec(["--notification"], .value("ID"), help: "The notification to tap (required)."), nowOption,
            lockTimeoutOption,
            jsonOption,
        ],
        discussion: """
            Only a delivered notification that has not been tapped can be opened. The app then launches as
            'devicectl launch' does (marker, flag, pending nudges cancelled, device token sent), recorded as
            launched from the notification. The last word printed is the new device token.
            JSON: as launch's, with the notification's id (docs/JSON.md).
            Example: devicectl tap /tmp/phone --notification N1-3f2a9c1d  (an id that notifications prints)
            """
    )

    /// A notification that was opened already (iOS removes it from Notification Center when tapped).
    struct AlreadyTapped: Error, CustomStringConvertible {
        let id: String
        let at: Date
        var description: String { "notification '\(id)' was already tapped at \(Timestamp.format(at)): nothing to tap" }
    }

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let root = try DeviceArguments.root(arguments)
        guard let id = arguments.value("--notification") else {
            throw UsageError("missing required option --notification ID", command: spec.name)
        }
        let now = try context.now(arguments)
        let device = try DeviceArguments.open(root, arguments, context)
        let launch = try device.withLock { () throws -> LaunchResult in
            try device.validate()
            try DeviceArguments.checkClock(device, now, arguments, context)
            let store = NotificationStore(device: device)
            guard let notification = try store.all().first(where: { $0.id == id }) else {
                throw DeviceError.unknownNotification(id)
            }
            if let tappedAt = notification.tappedAt { throw AlreadyTapped(id: id, at: tappedAt) }
            _ = try device.app(notification.app)  // fail before recording the tap if the app cannot launch
            try store.tap(id, at: now)
            return try device.launch(notification.app, at: now, source: .notification)
        }
        if arguments.flag("--json") {
            context.console.result(
                LaunchCommand.Result(launch, source: .notification, device: device, notification: id))
        } else {
            context.console.out(
                "tapped \(id): launched \(launch.app) from the notification; device token sent: \(launch.deviceToken)")
        }
        return 0
    }
}
