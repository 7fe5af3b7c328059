// WidgetRefreshCommandTests: `devicectl widget-refresh` output, reasons and exit status.
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct WidgetRefreshCommandTests {
    typealias F = NudgeFixture

    @Test func freshInstallNeverLaunchedIsNotArmed() throws {
        try withTemporaryDirectory { dir in
            try F.phone(dir + "/p")
            let widgets = try F.refresh(dir + "/p", at: F.at(hours: 1))
            #expect(widgets.count == 1)
            let widget = try #require(widgets.first)
            #expect(Set(widget.keys) == ["app", "decision", "reason", "fireDate", "notification", "failed"])
            #expect(widget["decision"] as? String == "none")
            #expect(widget["reason"] as? String == "not-armed")
            #expect(widget["fireDate"] is NSNull)
            #expect(widget["notification"] is NSNull)
            #expect(try F.flag(dir + "/p") == nil)
        }
    }

    @Test func markerPresentMeansNoNudge() throws {
        try withTemporaryDirectory { dir in
            try F.phone(dir + "/p")
            try F.launch(dir + "/p", at: F.at(hours: 0))
            let widgets = try F.refresh(dir + "/p", at: F.at(hours: 1))
            #expect(widgets.first?["reason"] as? String == "marker-present")
            #expect(widgets.first?["decision"] as? String == "none")
            #expect(try F.notifications(dir + "/p", at: F.at(hours: 1)).isEmpty)
        }
    }

    /// The restored state on the same phone: the marker deleted by hand, the flag still true.
    @Test func deletedMarkerWithTheFlagSetIsRestored() throws {
        try withTemporaryDirectory { dir in
            try F.phone(dir + "/p")
            try F.launch(dir + "/p", at: F.at(hours: 0))
            try FileManager.default.removeItem(atPath: try F.markerPath(dir + "/p"))
            let result = try F.run(["widget-refresh", dir + "/p"], at: F.at(hours: 1))
            #expect(result.status == 0)
            let id = try #require(try F.notifications(dir + "/p", at: F.at(hours: 1)).first?["id"] as? String)
            let expected =
                "\(F.news): scheduled (restored): notification \(id) fires \(Timestamp.format(F.at(hours: 25)))"
            #expect(result.stdout == expected + "\n")
        }
    }

    @Test func malformedDefaultsAreReportedAndTheOthersStillRun() throws {
        try withTemporaryDirectory { dir in
            let root = dir + "/p"
            try F.phone(root, apps: [F.news, F.mail])
            for app in [F.news, F.mail] { try F.launch(root, app, at: F.at(hours: 0)) }
            for app in [F.news, F.mail] { try FileManager.default.removeItem(atPath: try F.markerPath(root, app)) }
            let broken = try F.suitePath(root, F.news)
            try Data("<plist>not really".utf8).write(to: URL(fileURLWithPath: broken))

            let result = try F.run(["widget-refresh", root, "--json"], at: F.at(hours: 1))
            #expect(result.status == 1)
            #expect(result.stderr.contains("warning"))
            #expect(result.stderr.contains(broken))
            let object = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
            let widgets = try #require(object["widgets"] as? [[String: Any]])
            #expect(widgets.compactMap { $0["app"] as? String } == [F.news, F.mail])
            #expect(widgets.compactMap { $0["reason"] as? String } == ["defaults-unreadable", "restored"])
            #expect(widgets.compactMap { $0["decision"] as? String } == ["none", "scheduled"])
            #expect(try F.notifications(root, at: F.at(hours: 1)).compactMap { $0["app"] as? String } == [F.mail])
            #expect(try String(contentsOfFile: broken, encoding: .utf8) == "<plist>not really")
        }
    }

    @Test func uninstalledAppsWidgetIsSkippedWithAWarning() throws {
        try withTemporaryDirectory { dir in
            let root = dir + "/p"
            let device = try F.phone(root, apps: [F.news, F.mail])
            try FileManager.default.removeItem(atPath: try device.app(F.news).bundleContainer.path)
            let result = try F.run(["widget-refresh", root, "--json"], at: F.at(hours: 1))
            #expect(result.status == 0)
            #expect(result.stderr.contains("'\(F.news)'") && result.stderr.contains("not installed"))
            let object = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
            let widgets = try #require(object["widgets"] as? [[String: Any]])
            #expect(widgets.compactMap { $0["reason"] as? String } == ["app-not-installed", "not-armed"])
        }
    }

    @Test func noWidgets() throws {
        try withTemporaryDirectory { dir in
            #expect(try F.run(["init", dir + "/p"], at: F.at(hours: 0)).status == 0)
            let widgets = try F.refresh(dir + "/p", at: F.at(hours: 1))
            #expect(widgets.isEmpty)
            let text = try F.run(["widget-refresh", dir + "/p"], at: F.at(hours: 1))
            #expect(text.stdout == "no widgets on the home screen\n")
        }
    }

    @Test func errorsNameWhatFailed() throws {
        try withTemporaryDirectory { dir in
            let missing = try F.run(["widget-refresh", dir + "/absent"], at: F.at(hours: 1))
            #expect(missing.status == 1)
            #expect(missing.stderr.hasPrefix("devicectl: ") && missing.stderr.contains(dir + "/absent"))
            let notDevice = try F.run(["widget-refresh", dir], at: F.at(hours: 1))
            #expect(notDevice.status == 1)
            #expect(notDevice.stderr.contains("is not a device root"))
            let badTime = try DevicectlBinary.run(["widget-refresh", dir, "--now", "yesterday"])
            #expect(badTime.status == 64)
            #expect(badTime.stderr.contains("--now"))
        }
    }
}
