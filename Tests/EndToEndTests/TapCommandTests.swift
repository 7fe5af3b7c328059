// TapCommandTests: `devicectl tap` refuses what cannot be opened, and reports what it launched.
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct TapCommandTests {
    typealias F = NudgeFixture

    /// A phone whose news app has a nudge pending (scheduled at hour 1, firing at hour 25); returns its id.
    func nudged(_ root: String) throws -> String {
        try F.phone(root)
        try F.launch(root, at: F.at(hours: 0))
        try FileManager.default.removeItem(atPath: try F.markerPath(root))
        let widgets = try F.refresh(root, at: F.at(hours: 1))
        return try #require(widgets.first?["notification"] as? String)
    }

    @Test func onlyADeliveredNotificationCanBeTapped() throws {
        try withTemporaryDirectory { dir in
            let root = dir + "/p"
            let id = try nudged(root)
            let early = try F.run(["tap", root, "--notification", id], at: F.at(hours: 2))
            #expect(early.status == 1)
            #expect(early.stderr.contains("'\(id)' is pending, not delivered"))
            let unknown = try F.run(["tap", root, "--notification", "N9-nothing"], at: F.at(hours: 30))
            #expect(unknown.status == 1)
            #expect(unknown.stderr.contains("no notification 'N9-nothing'"))
            // Neither attempt launched anything.
            let launches = try F.events(root, at: F.at(hours: 2)).filter { $0["type"] as? String == "launch" }
            #expect(launches.count == 1)
        }
    }

    @Test func tapLaunchesOnceAndReportsJSON() throws {
        try withTemporaryDirectory { dir in
            let root = dir + "/p"
            let id = try nudged(root)
            let object = try F.json(["tap", root, "--notification", id], at: F.at(hours: 26))
            #expect(object["notification"] as? String == id)
            #expect(object["app"] as? String == F.news)
            #expect(object["source"] as? String == "notification")
            let udid = try Device.open(root).identity().udid
            #expect(object["deviceToken"] as? String == DeviceToken.derive(udid: udid, bundleId: F.news))
            #expect((object["cancelledNotifications"] as? [String])?.isEmpty == true)
            let again = try F.run(["tap", root, "--notification", id], at: F.at(hours: 27))
            #expect(again.status == 1)
            #expect(again.stderr.contains("already tapped at 2026-12-02T11:00:00Z"))
        }
    }

    @Test func tapOfAnUninstalledAppsNotificationFailsWithoutRecordingATap() throws {
        try withTemporaryDirectory { dir in
            let root = dir + "/p"
            let id = try nudged(root)
            try FileManager.default.removeItem(atPath: try Device.open(root).app(F.news).bundleContainer.path)
            let result = try F.run(["tap", root, "--notification", id], at: F.at(hours: 26))
            #expect(result.status == 1)
            #expect(result.stderr.contains("no app '\(F.news)' is installed"))
            #expect(try F.notifications(root, at: F.at(hours: 26)).first?["tapped"] as? Bool == false)
        }
    }

    @Test func missingNotificationOptionIsAUsageError() throws {
        try withTemporaryDirectory { dir in
            try F.phone(dir + "/p")
            let result = try F.run(["tap", dir + "/p"], at: F.at(hours: 1))
            #expect(result.status == 64)
            #expect(result.stderr.contains("missing required option --notification"))
        }
    }
}
