// RestoredNudgeScenarioTests: the nudge after a real move to a new phone (scenarios 1, 6, 7 and 8):
// scheduled once, delivered exactly 24 h later, cancelled by an earlier launch, and how the two flag
// policies differ when the widget refreshed between the last launch and the backup.
import Foundation
import TestSupport
import Testing

@Suite("Restored phone: the nudge")
struct RestoredNudgeScenarioTests {
    let news = App.news

    @Test("1. The seed's case: one nudge, delivered 24 h after the refresh; the tap sends a new device token")
    func restoredPhoneNudgesOnceAfter24HoursAndTheTapSendsANewToken() throws {
        try withTemporaryDirectory { dir in
            let old = try Phone.fresh("\(dir)/old", apps: [news])
            let oldToken = try old.launch(news, at: Clock.start)
            let before = try #require(try old.status().app(news.bundleId))
            #expect(before.markerPresent == true && before.markerExcluded == true && before.flag == .bool(true))

            let new = try old.migrate(to: "\(dir)/new", in: dir)
            let restored = try #require(try new.status(at: Clock.restore).app(news.bundleId))
            #expect(restored.widgetPlaced && restored.markerPresent == false && restored.flag == .bool(true))
            #expect(try new.status().udid != old.status().udid)

            let fire = Clock.firstRefresh + Clock.nudgeDelay
            let decisions = try new.refresh(at: Clock.firstRefresh)
            let id = try #require(decisions.first?.notification)
            #expect(
                decisions == [
                    WidgetDecision(
                        app: news.bundleId, decision: "scheduled", reason: "restored", fireDate: Clock.iso(fire),
                        notification: id)
                ])
            #expect(try new.status().app(news.bundleId)?.flag == .bool(false))

            let pending = try new.notifications(at: fire - Clock.second)
            #expect(pending.map(\.id) == [id] && pending.map(\.state) == ["pending"])
            let delivered = try new.notifications(at: fire)
            #expect(delivered.map(\.id) == [id] && delivered.map(\.state) == ["delivered"])
            #expect(delivered.first?.app == news.bundleId && delivered.first?.fireDate == Clock.iso(fire))
            #expect(delivered.first?.title.isEmpty == false && delivered.first?.body.isEmpty == false)

            let newToken = try new.tap(id, at: fire + 5 * Clock.minute)
            #expect(newToken.count == 64 && oldToken.count == 64)
            #expect(newToken != oldToken)

            let events = try new.events(at: fire + 10 * Clock.minute)
            #expect(events.filter { $0.type == "notification-scheduled" }.count == 1)
            #expect(events.filter { $0.type == "notification-delivered" }.map(\.time) == [Clock.iso(fire)])
            #expect(events.filter { $0.type == "notification-tapped" }.map { $0.details["id"] } == [id])
            #expect(events.filter { $0.type == "launch" }.map { $0.details["source"] } == ["notification"])
            #expect(events.filter { $0.type == "device-token-sent" }.map { $0.details["token"] } == [newToken])
            let after = try #require(try new.status(at: fire + 10 * Clock.minute).app(news.bundleId))
            #expect(after.markerPresent == true && after.flag == .bool(true) && after.lastDeviceToken == newToken)
        }
    }

    @Test("6. Launching after the nudge was scheduled but before it fires cancels it: never delivered")
    func launchBeforeTheFireDateCancelsTheNudgeForGood() throws {
        try withTemporaryDirectory { dir in
            let old = try Phone.fresh("\(dir)/old", apps: [news])
            try old.launch(news, at: Clock.start)
            let new = try old.migrate(to: "\(dir)/new", in: dir)
            let id = try #require(try new.refresh(at: Clock.firstRefresh).first?.notification)
            let fire = Clock.firstRefresh + Clock.nudgeDelay

            let launch = try new.launchReport(news, at: fire - Clock.hour)
            #expect(launch.cancelledNotifications == [id])
            for time in [fire - Clock.second, fire, fire + 3 * 24 * Clock.hour] {
                let notifications = try new.notifications(at: time)
                #expect(notifications.map(\.id) == [id] && notifications.map(\.state) == ["cancelled"])
            }
            let tap = try Devicectl.run(["tap", new.root, "--notification", id], at: fire + Clock.minute)
            #expect(tap.status == 1 && tap.stderr.hasPrefix("devicectl: "))
            #expect(try new.refresh(at: fire + Clock.hour).map(\.reason) == ["marker-present"])
            let events = try new.events(at: fire + 3 * 24 * Clock.hour)
            #expect(events.filter { $0.type == "notification-cancelled" }.map { $0.details["id"] } == [id])
            #expect(events.filter { ["notification-delivered", "notification-tapped"].contains($0.type) }.isEmpty)
            #expect(events.filter { $0.type == "launch" }.map { $0.details["source"] } == ["home-screen"])
        }
    }

    @Test("7. Many refreshes after the restore still schedule exactly one nudge")
    func repeatedRefreshesAfterTheRestoreScheduleExactlyOne() throws {
        try withTemporaryDirectory { dir in
            let old = try Phone.fresh("\(dir)/old", apps: [news])
            try old.launch(news, at: Clock.start)
            let new = try old.migrate(to: "\(dir)/new", in: dir)
            // Every 4 hours for two days, through the fire date and after the delivery.
            let times = (0..<13).map { Clock.firstRefresh + Double($0) * 4 * Clock.hour }
            let decisions = try times.map { try #require(try new.refresh(at: $0).first) }
            #expect(decisions.first?.decision == "scheduled" && decisions.first?.reason == "restored")
            #expect(decisions.dropFirst().allSatisfy { $0.decision == "none" && $0.reason == "not-armed" })
            #expect(decisions.dropFirst().allSatisfy { $0.fireDate == nil && $0.notification == nil })

            let notifications = try new.notifications(at: times.last!)
            #expect(notifications.count == 1 && notifications.first?.state == "delivered")
            #expect(try new.events("notification-scheduled", at: times.last!).count == 1)
            #expect(try new.events("widget-decision", at: times.last!).count == times.count)
        }
    }

    @Test(
        "8. A refresh between the last launch and the backup: 'once' nudges after the restore, 'as-published' does not",
        arguments: [("once", "scheduled", "restored", true), ("as-published", "none", "not-armed", false)])
    func refreshBeforeTheBackupSeparatesThePolicies(
        policy: String, decision: String, reason: String, nudges: Bool
    ) throws {
        try withTemporaryDirectory { dir in
            let app = news.with(policy: policy)
            let old = try Phone.fresh("\(dir)/old", apps: [app])
            try old.launch(app, at: Clock.start)
            // The widget refreshes during the day, as widgets do every 15-60 minutes: the marker is there.
            #expect(try old.refresh(at: Clock.start + Clock.hour).map(\.reason) == ["marker-present"])
            #expect(try old.status().app(app.bundleId)?.flag == .bool(nudges))

            let new = try old.migrate(to: "\(dir)/new", in: dir)
            #expect(try new.status().app(app.bundleId)?.flag == .bool(nudges))
            let refreshed = try #require(try new.refresh(at: Clock.firstRefresh).first)
            #expect(refreshed.decision == decision && refreshed.reason == reason)
            let notifications = try new.notifications(at: Clock.firstRefresh + 2 * Clock.nudgeDelay)
            #expect(notifications.map(\.state) == (nudges ? ["delivered"] : []))
        }
    }
}
