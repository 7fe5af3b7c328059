// NudgeFixture: device setup and binary runs shared by the nudge end-to-end tests.
//
// Everything runs through the built binary (init, install, widget add, launch, backup, restore and the nudge
// commands). Paths and values are read with DeviceKit (read only).
import DeviceKit
import Foundation
import TestSupport
import Testing

enum NudgeFixture {
    static let news = "com.example.news"
    static let mail = "com.example.mail"
    static let t0 = TestPhone.start

    static func at(hours: Double) -> Date { TestPhone.at(hours: hours) }

    // MARK: - Setup through the binary

    /// A fresh device at `root` (`init`) with `apps` installed under `policy` (`install`) and their widgets
    /// placed in order (`widget add`).
    @discardableResult
    static func phone(
        _ root: String, apps: [String] = [news], policy: NudgeSettings.Policy = .once, delay: String? = nil
    ) throws -> Device {
        try setup(["init", root, "--now", Timestamp.format(t0)])
        for app in apps { try install(root, app, policy: policy, delay: delay) }
        for app in apps { try placeWidget(root, app) }
        return try Device.open(root)
    }

    /// A phone (`phone`) whose app was launched at hour 0, then lost its marker as a restore loses it, and
    /// whose widget scheduled the nudge at hour 1 (firing 24 h later).
    static func phoneWithScheduledNudge(_ root: String) throws {
        try phone(root)
        try launch(root, at: at(hours: 0))
        try FileManager.default.removeItem(atPath: try markerPath(root))
        _ = try refresh(root, at: at(hours: 1))
    }

    /// `widget add ROOT --app APP`.
    static func placeWidget(_ root: String, _ app: String) throws {
        try setup(["widget", "add", root, "--app", app])
    }

    /// `install ROOT --app APP --nudge-policy POLICY [--nudge-delay DELAY]`.
    static func install(_ root: String, _ app: String, policy: NudgeSettings.Policy, delay: String? = nil) throws {
        try setup(
            ["install", root, "--app", app, "--nudge-policy", policy.rawValue]
                + (delay.map { ["--nudge-delay", $0] } ?? []))
    }

    /// `launch ROOT --app APP --now NOW`; returns the device token it sent (the output's last word).
    @discardableResult
    static func launch(_ root: String, _ app: String = news, at now: Date) throws -> String {
        let result = try setup(["launch", root, "--app", app, "--now", Timestamp.format(now)])
        return try #require(result.stdout.split(whereSeparator: \.isWhitespace).last.map(String.init))
    }

    /// Runs a setup command, which must succeed.
    @discardableResult
    private static func setup(_ arguments: [String]) throws -> RunResult {
        try DevicectlBinary.succeed(arguments)
    }

    /// The marker's path in `app`'s first App Group container.
    static func markerPath(_ root: String, _ app: String = news) throws -> String {
        try TestPhone(device: Device.open(root)).markerPath(app)
    }

    /// The path of `app`'s shared defaults suite.
    static func suitePath(_ root: String, _ app: String = news) throws -> String {
        try TestPhone(device: Device.open(root)).suite(app).path
    }

    /// The flag's raw value in `app`'s shared suite.
    static func flag(_ root: String, _ app: String = news) throws -> Any? {
        try TestPhone(device: Device.open(root)).flag(app)
    }

    /// Moves the user onto a new phone at `newRoot`: the old phone is backed up with `backup` (which leaves the
    /// marker out: it is excluded from backup), a new phone is made with `init`, and the archive is put onto it
    /// with `restore` (which reinstalls the apps and places the widgets again). Device-local state (identity,
    /// notifications, events) stays behind, as backups never carry it.
    static func restore(from oldRoot: String, to newRoot: String) throws {
        let archive = "\(newRoot).from-backup.tar"
        defer { try? FileManager.default.removeItem(atPath: archive) }
        try setup(["backup", oldRoot, "-o", archive, "--no-progress"])
        try setup(["init", newRoot, "--now", Timestamp.format(t0)])
        try setup(["restore", archive, newRoot, "--no-progress", "--now", Timestamp.format(t0)])
    }

    // MARK: - The binary

    /// Runs `devicectl arguments... --now now`.
    @discardableResult
    static func run(_ arguments: [String], at now: Date) throws -> RunResult {
        try DevicectlBinary.run(arguments + ["--now", Timestamp.format(now)])
    }

    /// Runs a `--json` command and returns its object (the run must print one JSON object).
    static func json(_ arguments: [String], at now: Date, status: Int32 = 0) throws -> [String: Any] {
        let result = try run(arguments + ["--json"], at: now)
        #expect(result.status == status, "devicectl \(arguments.joined(separator: " ")): \(result.stderr)")
        return try PhoneScratch.json(result)
    }

    /// `widget-refresh ROOT --json`'s widgets.
    static func refresh(_ root: String, at now: Date, status: Int32 = 0) throws -> [[String: Any]] {
        try #require(try json(["widget-refresh", root], at: now, status: status)["widgets"] as? [[String: Any]])
    }

    /// `notifications ROOT --json`'s notifications.
    static func notifications(_ root: String, at now: Date) throws -> [[String: Any]] {
        try #require(try json(["notifications", root], at: now)["notifications"] as? [[String: Any]])
    }

    /// `events ROOT --json`'s events.
    static func events(_ root: String, at now: Date) throws -> [[String: Any]] {
        try #require(try json(["events", root], at: now)["events"] as? [[String: Any]])
    }
}
