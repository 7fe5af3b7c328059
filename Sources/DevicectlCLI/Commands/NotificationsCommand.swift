// NotificationsCommand: `devicectl notifications`: every local notification and its state as of now.
import DeviceKit
import Foundation

enum NotificationsCommand: Command {
    static let spec = CommandSpec(
        name: "notifications", summary: "List notifications with their state as of now.",
        positionals: [PositionalSpec("ROOT", help: "The device root.")],
        options: [nowOption, jsonOption],
        discussion: """
            State: pending while now < fireDate, delivered once now >= fireDate, cancelled when the app was
            launched first. Reads only: deliveries due by now are shown, and recorded in the event log by the
            next command that writes (launch, tap, widget-refresh). A --now before the device's clock (its
            latest event) is refused; DEVICECTL_NOW or the system clock before it shows the device as of its clock.
            JSON: {"now","notifications":[{"id","app","title","body","fireDate","state","tapped","tappedAt"}]}
            Example: devicectl notifications /tmp/phone --json
            """
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let (device, now) = try DeviceArguments.openForReading(arguments, context)
        let notifications = try NotificationStore(device: device).all()
        context.console.listing(
            json: arguments.flag("--json"),
            Result(now: now, notifications: notifications.map { Notification($0, at: now) }),
            lines: { notifications.map { line($0, at: now) } }, none: "no notifications")
        return 0
    }

    /// `N1-…  com.example.news  delivered, tapped  2026-12-02T09:00:00Z  Title: Body`.
    static func line(_ notification: LocalNotification, at now: Date) -> String {
        var state = notification.state(at: now).rawValue
        if notification.tappedAt != nil { state += ", tapped" }
        return [
            notification.id, notification.app, state, Timestamp.format(notification.fireDate),
            "\(notification.title): \(notification.body)",
        ].joined(separator: "  ")
    }
}
