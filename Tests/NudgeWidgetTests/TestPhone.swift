// TestPhone: a device root with nudge-widget apps installed and placed, for the refresher's tests.
import DeviceKit
import Foundation
import Glibc

/// A device in a temporary directory, with helpers to put it in the states the widget distinguishes.
struct TestPhone {
    let device: Device
    static let start = Timestamp.parse("2026-12-01T09:00:00Z")!

    /// Initialises a device at `root`, installs each app with `policy` (group `group.<bundle id>`) and
    /// places each app's widget, in order.
    init(_ root: String, apps: [String], policy: NudgeSettings.Policy = .once) throws {
        device = try Device.initialize(root, now: Self.start)
        for app in apps {
            try device.install(AppInstallation(bundleId: app, widget: NudgeSettings(policy: policy)))
            try device.placeWidget(app: app)
        }
    }

    func group(_ app: String) throws -> Container {
        try device.groupContainer("group.\(app)")
    }

    func suite(_ app: String) throws -> DefaultsSuite {
        try device.defaults("group.\(app)")
    }

    /// The flag's raw value in the app's shared suite.
    func flag(_ app: String) throws -> Any? {
        try suite(app).value(NudgeSettings.defaultFlagKey)
    }

    func markerPath(_ app: String) throws -> String {
        "\(try group(app).path)/\(NudgeSettings.defaultMarkerFileName)"
    }

    /// Deletes the marker: what a restore leaves (the marker is excluded from backup, the flag is not).
    func removeMarker(_ app: String) throws {
        let path = try markerPath(app)
        guard unlink(path) == 0 else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: path]) }
    }

    func events(_ type: String) throws -> [DeviceEvent] {
        try EventLog(device: device).events().filter { $0.type == type }
    }

    static func at(hours: Double) -> Date { start.addingTimeInterval(hours * 3_600) }
}
