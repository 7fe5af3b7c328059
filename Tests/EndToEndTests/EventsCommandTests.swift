// EventsCommandTests: `devicectl events`: the whole story in order, JSON and text, deliveries settled.
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct EventsCommandTests {
    typealias F = NudgeFixture

    @Test func theRestoreStoryOldestFirst() throws {
        try withTemporaryDirectory { dir in
            let root = dir + "/p"
            try F.phone(root)
            try F.launch(root, at: F.at(hours: 0))
            try FileManager.default.removeItem(atPath: try F.markerPath(root))
            let id = try #require(try F.refresh(root, at: F.at(hours: 1)).first?["notification"] as? String)
            // Settling happens when events is asked at a later time: the delivery is logged at its fire date,
            // before the tap that happens after it.
            _ = try F.run(["tap", root, "--notification", id], at: F.at(hours: 30))
            let events = try F.events(root, at: F.at(hours: 30))
            let story = events.map { "\($0["type"] as? String ?? "?")@\($0["time"] as? String ?? "?")" }
            #expect(
                story == [
                    "init@2026-12-01T09:00:00Z",
                    "launch@2026-12-01T09:00:00Z",
                    "device-token-sent@2026-12-01T09:00:00Z",
                    "notification-scheduled@2026-12-01T10:00:00Z",
                    "widget-decision@2026-12-01T10:00:00Z",
                    "notification-delivered@2026-12-02T10:00:00Z",
                    "notification-tapped@2026-12-02T15:00:00Z",
                    "launch@2026-12-02T15:00:00Z",
                    "device-token-sent@2026-12-02T15:00:00Z",
                ])
            let decision = try #require(events.first { $0["type"] as? String == "widget-decision" })
            #expect(decision["app"] as? String == F.news)
            let details = try #require(decision["details"] as? [String: Any])
            #expect(details["decision"] as? String == "scheduled")
            #expect(details["reason"] as? String == "restored")
            #expect(details["notification"] as? String == id)
            #expect(details["flagCleared"] as? Bool == true, "a yes/no detail is a JSON boolean")
        }
    }

    @Test func nowSettlesDeliveriesDue() throws {
        try withTemporaryDirectory { dir in
            let root = dir + "/p"
            try F.phoneWithScheduledNudge(root)
            let before = try F.events(root, at: F.at(hours: 24))
            #expect(!before.contains { $0["type"] as? String == "notification-delivered" })
            let after = try F.events(root, at: F.at(hours: 25))
            #expect(after.filter { $0["type"] as? String == "notification-delivered" }.count == 1)
            let twice = try F.events(root, at: F.at(hours: 26))
            #expect(twice.filter { $0["type"] as? String == "notification-delivered" }.count == 1)
        }
    }

    @Test func textOutput() throws {
        try withTemporaryDirectory { dir in
            let root = dir + "/p"
            try F.phone(root)
            let udid = try Device.open(root).identity().udid
            #expect(
                try F.run(["events", root], at: F.at(hours: 0)).stdout == "2026-12-01T09:00:00Z  init  udid=\(udid)\n")
            try F.launch(root, at: F.at(hours: 0))
            let text = try F.run(["events", root], at: F.at(hours: 0))
            let lines = text.stdout.split(separator: "\n").map(String.init)
            #expect(lines.count == 3)
            #expect(lines[1] == "2026-12-01T09:00:00Z  launch  \(F.news)  source=home-screen")
            #expect(lines.last?.hasPrefix("2026-12-01T09:00:00Z  device-token-sent  \(F.news)  token=") == true)
            let object = try F.json(["events", root], at: F.at(hours: 0))
            let first = try #require((object["events"] as? [[String: Any]])?.first)
            #expect(Set(first.keys) == ["time", "type", "app", "details"])
        }
    }
}
