// Phone: one simulated device root, driven step by step through the built devicectl binary.
//
// Each method is one thing a user (or iOS) does to the phone, at an explicit time; readers return the
// decoded --json output. Scenarios compose these steps instead of repeating command lines.
import Foundation
import Testing

struct Phone: Sendable {
    let root: String

    // MARK: - Setting up

    /// `devicectl init ROOT`: a fresh device with its own identity.
    static func fresh(_ root: String, at now: Date = Clock.start) throws -> Phone {
        try Devicectl.succeed(["init", root], at: now)
        return Phone(root: root)
    }

    /// A fresh phone with `apps` installed and, for those in `widgets`, their widgets placed in order.
    static func fresh(_ root: String, apps: [App], widgets: [App]? = nil, at now: Date = Clock.start) throws -> Phone {
        let phone = try fresh(root, at: now)
        for app in apps { try phone.install(app, at: now) }
        for app in widgets ?? apps.filter(\.hasWidget) { try phone.placeWidget(app, at: now) }
        return phone
    }

    /// `devicectl install ROOT --app ...` (installing again upgrades the app and keeps its data).
    func install(_ app: App, at now: Date = Clock.start) throws {
        try Devicectl.succeed(["install", root] + app.installArguments, at: now)
    }

    /// `devicectl widget add ROOT --app ...`: the user places the app's widget on the home screen.
    func placeWidget(_ app: App, at now: Date = Clock.start) throws {
        try Devicectl.succeed(["widget", "add", root, "--app", app.bundleId], at: now)
    }

    /// `devicectl defaults write ROOT DOMAIN KEY -TYPE VALUE`.
    func writeDefault(_ domain: String, _ key: String, _ type: String, _ value: String, at now: Date = Clock.start)
        throws
    {
        try Devicectl.succeed(["defaults", "write", root, domain, key, "-\(type)", value], at: now)
    }

    // MARK: - Using the phone

    /// `devicectl launch`: the user opens the app (marker, flag, pending nudge cancelled); returns the token sent.
    @discardableResult
    func launch(_ app: App, at now: Date) throws -> String {
        try launchReport(app, at: now).deviceToken
    }

    /// `devicectl launch --json`: the token sent and the pending nudges cancelled.
    func launchReport(_ app: App, at now: Date) throws -> LaunchOutput {
        try Devicectl.json(LaunchOutput.self, ["launch", root, "--app", app.bundleId], at: now)
    }

    /// `devicectl widget-refresh`: every placed widget's timeline refresh, in home-screen order.
    @discardableResult
    func refresh(at now: Date) throws -> [WidgetDecision] {
        try Devicectl.json(WidgetRefreshOutput.self, ["widget-refresh", root], at: now).widgets
    }

    /// `devicectl tap --notification ID`: the user opens a delivered notification; returns the token sent.
    func tap(_ notification: String, at now: Date) throws -> String {
        try Devicectl.json(LaunchOutput.self, ["tap", root, "--notification", notification], at: now).deviceToken
    }

    // MARK: - Reading it

    func notifications(at now: Date) throws -> [Notification] {
        try Devicectl.json(NotificationsOutput.self, ["notifications", root], at: now).notifications
    }

    func events(at now: Date) throws -> [Event] {
        try Devicectl.json(EventsOutput.self, ["events", root], at: now).events
    }

    func events(_ type: String, at now: Date) throws -> [Event] {
        try events(at: now).filter { $0.type == type }
    }

    func status(at now: Date = Clock.start) throws -> DeviceStatus {
        try Devicectl.json(DeviceStatus.self, ["status", root], at: now)
    }

    /// The absolute path of App Group `group`'s container (found by identifier, as devicectl does).
    func groupContainer(_ group: String) throws -> String {
        let container = try #require(try status().groups.first { $0.id == group }?.container, "no group \(group)")
        return "\(root)/\(container)"
    }
}
