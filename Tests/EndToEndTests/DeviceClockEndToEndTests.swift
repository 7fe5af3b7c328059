// DeviceClockEndToEndTests: a device's clock (its latest event) only moves forward, the read-only commands
// (status, notifications, events) never write, and a date that does not exist is a usage error.
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct DeviceClockEndToEndTests {
    typealias F = NudgeFixture

    /// A phone launched at 0 h, its marker gone, refreshed at 1 h (a nudge firing at 25 h), tapped at 30 h.
    static func tappedPhone(_ root: String) throws -> String {
        try F.phone(root)
        try F.launch(root, at: F.at(hours: 0))
        try FileManager.default.removeItem(atPath: try F.markerPath(root))
        let id = try #require(try F.refresh(root, at: F.at(hours: 1)).first?["notification"] as? String)
        let tap = try F.run(["tap", root, "--notification", id], at: F.at(hours: 30))
        try #require(tap.status == 0, "\(tap.stderr)")
        return id
    }

    /// Every command acting at a time, at 2 h, after the device's clock reached 30 h: refused, naming the
    /// clock and the time, and nothing in ROOT changes.
    @Test(arguments: ["launch", "tap", "widget-refresh", "status", "notifications", "events"])
    func anEarlierNowIsRefusedAndChangesNothing(_ command: String) throws {
        try withTemporaryDirectory { dir in
            let root = dir + "/p"
            let id = try Self.tappedPhone(root)
            let before = try TreeSnapshot.take(root)
            let arguments: [String] =
                switch command {
                case "launch": ["launch", root, "--app", F.news]
                case "tap": ["tap", root, "--notification", id]
                default: [command, root]
                }
            let result = try F.run(arguments, at: F.at(hours: 2))
            #expect(result.status == 1, "\(result.stdout)")
            #expect(
                result.stderr.contains(
                    "\(root)'s clock is at 2026-12-02T15:00:00Z; --now 2026-12-01T11:00:00Z is earlier"),
                "\(result.stderr)")
            #expect(try TreeSnapshot.take(root) == before)
            // The clock itself is fine: the same command at the clock's time is accepted.
            if command != "tap" && command != "launch" {
                #expect(try F.run(arguments, at: F.at(hours: 30)).status == 0)
            }
        }
    }

    /// A command that writes names `DEVICECTL_NOW` when it is the source of the earlier time; a read-only
    /// command given an earlier `DEVICECTL_NOW` (or system clock) shows the device as of its clock instead.
    @Test func theEnvironmentIsNamedWhenItIsTheSource() throws {
        try withTemporaryDirectory { dir in
            let root = dir + "/p"
            let id = try Self.tappedPhone(root)
            let environment = ["DEVICECTL_NOW": "2026-12-01T11:00:00Z"]
            let before = try TreeSnapshot.take(root)
            let result = try DevicectlBinary.run(["launch", root, "--app", F.news], environment: environment)
            #expect(result.status == 1)
            #expect(result.stderr.contains("; DEVICECTL_NOW 2026-12-01T11:00:00Z is earlier"), "\(result.stderr)")
            let shown = try DevicectlBinary.run(["notifications", root], environment: environment)
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(shown.stdout.hasPrefix("\(id)  \(F.news)  delivered, tapped  "), "\(shown.stdout)")
            #expect(try TreeSnapshot.take(root) == before)
        }
    }

    /// status, notifications and events at a far later time show deliveries due then, and write nothing:
    /// the device's clock stays, so an earlier (but not pre-clock) time is still accepted afterwards.
    @Test func readOnlyCommandsNeverWrite() throws {
        try withTemporaryDirectory { dir in
            let root = dir + "/p"
            try F.phoneWithScheduledNudge(root)
            let before = try TreeSnapshot.take(root)
            let later = F.at(hours: 24 * 365 * 4)
            let shown = try F.notifications(root, at: later)
            #expect(shown.map { $0["state"] as? String } == ["delivered"])
            let events = try F.events(root, at: later)
            #expect(events.last?["type"] as? String == "notification-delivered")
            #expect(events.last?["time"] as? String == "2026-12-02T10:00:00Z")
            let status = try F.json(["status", root], at: later)
            let app = try #require((status["apps"] as? [[String: Any]])?.first)
            #expect((app["notifications"] as? [String: Int])?["delivered"] == 1)
            #expect(try TreeSnapshot.take(root) == before, "a read-only command wrote")
            // Nothing was recorded at the later time: at 2 h the nudge is pending, never "pending, tapped".
            #expect(try F.notifications(root, at: F.at(hours: 2)).map { $0["state"] as? String } == ["pending"])
            // The next command that writes records the delivery, at its fire date, once.
            _ = try F.refresh(root, at: F.at(hours: 26))
            let logged = try F.events(root, at: F.at(hours: 26)).filter {
                $0["type"] as? String == "notification-delivered"
            }
            #expect(logged.count == 1)
            let raw = try String(contentsOfFile: root + "/DeviceLocal/events.jsonl", encoding: .utf8)
            #expect(raw.components(separatedBy: "notification-delivered").count == 2)
        }
    }

    /// Dates that do not exist are refused as usage errors, not rolled over (2026-02-30 is not March 2).
    @Test(arguments: [
        "2026-02-30T00:00:00Z", "2026-02-29T00:00:00Z", "2026-04-31T09:00:00Z", "2026-13-01T00:00:00Z",
        "2026-00-10T00:00:00Z", "2026-12-00T00:00:00Z", "2026-12-01T24:00:00Z", "2026-12-01T09:60:00Z",
        "2026-12-01T09:00:60Z", "2026-12-01T09:00:00+24:00", "2026-12-01T09:00:00+01:60",
    ])
    func anImpossibleDateIsAUsageError(_ text: String) throws {
        #expect(Timestamp.parse(text) == nil)
        try withTemporaryDirectory { dir in
            let root = dir + "/p"
            try F.phone(root)
            let before = try TreeSnapshot.take(root)
            let result = try DevicectlBinary.run(["launch", root, "--app", F.news, "--now", text])
            #expect(result.status == 64, "\(result.stderr)")
            #expect(result.stderr.contains("invalid value '\(text)' for --now"), "\(result.stderr)")
            let environment = try DevicectlBinary.run(["status", root], environment: ["DEVICECTL_NOW": text])
            #expect(environment.status == 64)
            #expect(try TreeSnapshot.take(root) == before)
        }
    }

    @Test func realDatesStillParse() throws {
        #expect(Timestamp.parse("2028-02-29T23:59:59Z") != nil)
        #expect(Timestamp.parse("2000-02-29T00:00:00Z") != nil)
        #expect(Timestamp.parse("2026-12-01T10:00:00.250+01:00") == Timestamp.parse("2026-12-01T09:00:00.25Z"))
        #expect(Timestamp.parse("1900-02-29T00:00:00Z") == nil)
    }
}
