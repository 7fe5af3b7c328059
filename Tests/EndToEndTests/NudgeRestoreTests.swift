// NudgeRestoreTests: the seed's restore nudge end to end, through the binary: one notification 24 h after
// the refresh that finds the restored state, never a second, cancelled by a launch, opened by a tap.
import DeviceKit
import Foundation
import SystemKit
import TestSupport
import Testing

@Suite struct NudgeRestoreTests {
    typealias F = NudgeFixture

    /// An old phone used for a while, then a new phone restored from it. Returns the old phone's token.
    @discardableResult
    func migrate(_ dir: String, policy: NudgeSettings.Policy = .once) throws -> String {
        try F.phone("\(dir)/old", policy: policy)
        let oldToken = try F.launch("\(dir)/old", at: F.at(hours: 0))
        try F.restore(from: "\(dir)/old", to: "\(dir)/new")
        return oldToken
    }

    @Test func restoreSchedulesExactlyOneNotificationDelivered24HoursLater() throws {
        try withTemporaryDirectory { dir in
            try migrate(dir)
            let new = "\(dir)/new"
            #expect(try FileStatus.ifExists(try F.markerPath(new)) == nil)
            #expect(try F.flag(new) as? Bool == true)

            let refreshAt = F.at(hours: 10)
            let fireDate = Timestamp.format(refreshAt + 86_400)
            let widgets = try F.refresh(new, at: refreshAt)
            #expect(widgets.count == 1)
            #expect(widgets.first?["app"] as? String == F.news)
            #expect(widgets.first?["decision"] as? String == "scheduled")
            #expect(widgets.first?["reason"] as? String == "restored")
            #expect(widgets.first?["fireDate"] as? String == fireDate)

            // A second refresh (widgets refresh every 15-60 minutes) does not schedule another.
            let again = try F.refresh(new, at: refreshAt + 1_800)
            #expect(again.first?["decision"] as? String == "none")
            #expect(again.first?["reason"] as? String == "not-armed")
            #expect(again.first?["fireDate"] is NSNull)

            let pending = try F.notifications(new, at: refreshAt + 86_399)
            #expect(pending.count == 1)
            #expect(pending.first?["state"] as? String == "pending")
            #expect(pending.first?["fireDate"] as? String == fireDate)
            #expect(pending.first?["app"] as? String == F.news)
            #expect(pending.first?["tapped"] as? Bool == false)
            let delivered = try F.notifications(new, at: refreshAt + 86_400)
            #expect(delivered.map { $0["state"] as? String } == ["delivered"])

            let events = try F.events(new, at: refreshAt + 90_000)
            let types = events.compactMap { $0["type"] as? String }
            #expect(types.filter { $0 == "notification-scheduled" }.count == 1)
            #expect(types.filter { $0 == "notification-delivered" }.count == 1)
            let delivery = try #require(events.first { $0["type"] as? String == "notification-delivered" })
            #expect(delivery["time"] as? String == fireDate)
            #expect(types.filter { $0 == "widget-decision" }.count == 2)
        }
    }

    @Test func launchingBeforeTheFireDateCancelsIt() throws {
        try withTemporaryDirectory { dir in
            try migrate(dir)
            let new = "\(dir)/new"
            let refreshAt = F.at(hours: 10)
            let widgets = try F.refresh(new, at: refreshAt)
            #expect(widgets.first?["decision"] as? String == "scheduled")
            try F.launch(new, at: refreshAt + 3_600)
            let later = try F.notifications(new, at: refreshAt + 2 * 86_400)
            #expect(later.map { $0["state"] as? String } == ["cancelled"])
            let events = try F.events(new, at: refreshAt + 2 * 86_400)
            let types = events.compactMap { $0["type"] as? String }
            #expect(types.contains("notification-cancelled"))
            #expect(!types.contains("notification-delivered"))
            // The launch made the marker: the widget now sees an app that has been launched here.
            let after = try F.refresh(new, at: refreshAt + 7_200)
            #expect(after.first?["reason"] as? String == "marker-present")
        }
    }

    @Test func tappingTheDeliveredNotificationLaunchesTheAppAndSendsTheNewToken() throws {
        try withTemporaryDirectory { dir in
            let oldToken = try migrate(dir)
            let new = "\(dir)/new"
            let refreshAt = F.at(hours: 10)
            _ = try F.refresh(new, at: refreshAt)
            let id = try #require(try F.notifications(new, at: refreshAt).first?["id"] as? String)

            let tapAt = refreshAt + 86_400 + 600
            let tap = try F.run(["tap", new, "--notification", id], at: tapAt)
            #expect(tap.status == 0, "\(tap.stderr)")
            let token = try #require(tap.stdout.split(whereSeparator: \.isWhitespace).last.map(String.init))
            let udid = try Device.open(new).identity().udid
            #expect(token == DeviceToken.derive(udid: udid, bundleId: F.news))
            #expect(token != oldToken)

            let notification = try #require(try F.notifications(new, at: tapAt).first)
            #expect(notification["state"] as? String == "delivered")
            #expect(notification["tapped"] as? Bool == true)

            let events = try F.events(new, at: tapAt)
            let tail = events.suffix(3).map { "\($0["type"] as? String ?? "")" }
            #expect(tail == ["notification-tapped", "launch", "device-token-sent"])
            let launch = try #require(events.last { $0["type"] as? String == "launch" })
            #expect((launch["details"] as? [String: String])?["source"] == "notification")
            #expect(launch["time"] as? String == Timestamp.format(tapAt))
            let sent = try #require(events.last)
            #expect((sent["details"] as? [String: String])?["token"] == token)
            #expect(try FileStatus.ifExists(try F.markerPath(new)) != nil)
        }
    }

    @Test func aZeroDelayNudgeIsDeliveredAtOnce() throws {
        try withTemporaryDirectory { dir in
            try F.phone("\(dir)/old", delay: "0s")
            try F.launch("\(dir)/old", at: F.at(hours: 0))
            try F.restore(from: "\(dir)/old", to: "\(dir)/new")
            let widgets = try F.refresh("\(dir)/new", at: F.at(hours: 5))
            #expect(widgets.first?["fireDate"] as? String == Timestamp.format(F.at(hours: 5)))
            #expect(try F.notifications("\(dir)/new", at: F.at(hours: 5)).first?["state"] as? String == "delivered")
        }
    }
}
