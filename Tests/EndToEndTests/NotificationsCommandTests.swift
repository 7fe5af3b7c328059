// NotificationsCommandTests: `devicectl notifications` fields, states over time and text output.
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct NotificationsCommandTests {
    typealias F = NudgeFixture

    @Test func listsEveryFieldAndTheStateAsOfNow() throws {
        try withTemporaryDirectory { dir in
            let root = dir + "/p"
            try F.phoneWithScheduledNudge(root)
            let notification = try #require(try F.notifications(root, at: F.at(hours: 1)).first)
            #expect(
                Set(notification.keys) == ["id", "app", "title", "body", "fireDate", "state", "tapped", "tappedAt"])
            let settings = NudgeSettings(appName: "News")
            #expect(notification["title"] as? String == settings.title)
            #expect(notification["body"] as? String == settings.body)
            #expect(notification["fireDate"] as? String == "2026-12-02T10:00:00Z")
            #expect(notification["state"] as? String == "pending")
            // The state is a function of --now: asking about an earlier time again still says pending.
            #expect(try F.notifications(root, at: F.at(hours: 24)).first?["state"] as? String == "pending")
            #expect(try F.notifications(root, at: F.at(hours: 25)).first?["state"] as? String == "delivered")

            let text = try F.run(["notifications", root], at: F.at(hours: 25))
            #expect(text.status == 0)
            let id = try #require(notification["id"] as? String)
            #expect(text.stdout.hasPrefix("\(id)  \(F.news)  delivered  2026-12-02T10:00:00Z  \(settings.title): "))
        }
    }

    @Test func noNotifications() throws {
        try withTemporaryDirectory { dir in
            try F.phone(dir + "/p")
            #expect(try F.notifications(dir + "/p", at: F.at(hours: 1)).isEmpty)
            #expect(try F.run(["notifications", dir + "/p"], at: F.at(hours: 1)).stdout == "no notifications\n")
        }
    }

    @Test func malformedStoreIsAnErrorNamingTheFile() throws {
        try withTemporaryDirectory { dir in
            let device = try F.phone(dir + "/p")
            let store = device.path(DeviceLayout.notifications)
            try Data("garbage".utf8).write(to: URL(fileURLWithPath: store))
            let result = try F.run(["notifications", dir + "/p"], at: F.at(hours: 1))
            #expect(result.status == 1)
            #expect(result.stderr.contains(store))
        }
    }
}
