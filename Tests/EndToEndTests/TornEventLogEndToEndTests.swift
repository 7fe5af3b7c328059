// TornEventLogEndToEndTests: a torn last line in DeviceLocal/events.jsonl (a crash while logging) blocks no
// command: status, launch and events warn naming the log, and the next event starts a new line.
import Foundation
import TestSupport
import Testing

@Suite struct TornEventLogEndToEndTests {
    typealias F = NudgeFixture

    @Test func statusLaunchAndEventsWarnAndCarryOn() throws {
        try withTemporaryDirectory { dir in
            let root = dir + "/p"
            try F.phone(root)
            let log = root + "/DeviceLocal/events.jsonl"
            let handle = try #require(FileHandle(forWritingAtPath: log))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(#"{"app":"com.example.news","details":{"sou"#.utf8))
            try handle.close()
            let warning = "devicectl: warning: \(log): line 2 was cut short by an interrupted write"
            for arguments in [["status", root], ["events", root], ["notifications", root]] {
                let result = try F.run(arguments, at: F.at(hours: 1))
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains(warning), "\(arguments): \(result.stderr)")
            }
            let launch = try F.run(["launch", root, "--app", F.news], at: F.at(hours: 1))
            #expect(launch.status == 0, "\(launch.stderr)")
            #expect(launch.stderr.contains(warning))
            let events = try F.run(["events", root, "--json"], at: F.at(hours: 1))
            #expect(events.status == 0)
            #expect(events.stderr.isEmpty, "the ended torn line is still reported: \(events.stderr)")
            let types = try F.events(root, at: F.at(hours: 1)).map { $0["type"] as? String }
            #expect(types == ["init", "launch", "device-token-sent"])
        }
    }
}
