// TestPhone: a device root built in-process with DeviceKit (apps installed, widgets placed) at a fixed time.
import DeviceKit
import Foundation
import Glibc
import Testing

/// A device made through DeviceKit rather than the binary (or one the binary made, opened), with readers for the
/// states the nudge widget distinguishes, and the tests' clock.
public struct TestPhone {
    public let device: Device
    /// The tests' clock: 2026-12-01T09:00:00Z, the time PhoneScratch's runs are pinned to.
    public static let start = Timestamp.parse(PhoneScratch.now)!

    /// `start` plus `hours`.
    public static func at(hours: Double) -> Date { start.addingTimeInterval(hours * 3_600) }

    /// Initialises a device at `root` at `now`, installs each app with `policy` (group `group.<bundle id>`) and
    /// places each app's widget, in order.
    public init(_ root: String, apps: [String], policy: NudgeSettings.Policy = .once, now: Date = TestPhone.start)
        throws
    {
        device = try Device.initialize(root, now: now)
        for app in apps {
            try device.install(AppInstallation(bundleId: app, widget: NudgeSettings(policy: policy)))
            try device.placeWidget(app: app)
        }
    }

    /// An existing device (made by the binary, say), for its readers.
    public init(device: Device) {
        self.device = device
    }

    /// Runs `body` with a freshly initialised device (no apps) at `<tmp>/phone`, removed afterwards.
    public static func withDevice<T>(_ body: (Device) throws -> T) throws -> T {
        try withTemporaryDirectory { dir in
            try body(try TestPhone("\(dir)/phone", apps: []).device)
        }
    }

    /// The app's first App Group container: where its marker and flag are.
    public func group(_ app: String) throws -> Container {
        try device.groupContainer(try #require(try device.app(app).groups.first, "\(app) has no App Group"))
    }

    /// The app's shared defaults suite (in its first App Group).
    public func suite(_ app: String) throws -> DefaultsSuite {
        try device.defaults(try #require(try device.app(app).groups.first, "\(app) has no App Group"))
    }

    /// The flag's raw value in the app's shared suite.
    public func flag(_ app: String) throws -> Any? {
        try suite(app).value(NudgeSettings.defaultFlagKey)
    }

    /// The marker's path: the widget's marker file name in the app's first App Group.
    public func markerPath(_ app: String) throws -> String {
        let widget = try #require(try device.app(app).widget, "\(app) has no widget")
        return "\(try group(app).path)/\(widget.markerFileName)"
    }

    /// Deletes the marker: what a restore leaves (the marker is excluded from backup, the flag is not).
    public func removeMarker(_ app: String) throws {
        let path = try markerPath(app)
        guard unlink(path) == 0 else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path]) }
    }

    public func events(_ type: String) throws -> [DeviceEvent] {
        try EventLog(device: device).events().filter { $0.type == type }
    }
}
