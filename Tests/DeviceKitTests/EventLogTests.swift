// EventLogTests: the device-local event log is read back oldest first, stable for equal times.
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct EventLogTests {
    @Test func eventsComeBackOldestFirstAndStable() throws {
        try TestPhone.withDevice { device in
            let log = EventLog(device: device)
            #expect(log.path == device.path(DeviceLayout.events))
            try log.append(DeviceEvent(time: TestPhone.at(hours: 2), type: "second", app: "a"))
            try log.append(DeviceEvent(time: TestPhone.at(hours: 1), type: "first"))
            try log.append(DeviceEvent(time: TestPhone.at(hours: 2), type: "third", details: ["k": "v"]))
            let events = try log.events()
            #expect(events.map(\.type) == ["first", "second", "third"])
            #expect(events[1].app == "a")
            #expect(events[2].details == ["k": "v"])
            #expect(events[0].time == "2026-12-01T10:00:00Z")
            // One JSON object a line, in append order on disk.
            let lines = try String(contentsOfFile: log.path, encoding: .utf8).split(separator: "\n")
            #expect(lines.count == 3)
            #expect(lines[0].contains("\"type\":\"second\""))
        }
    }

    @Test func aMalformedLineIsReportedWithTheFile() throws {
        try TestPhone.withDevice { device in
            let log = EventLog(device: device)
            try log.append(DeviceEvent(time: TestPhone.start, type: "ok"))
            let handle = try #require(FileHandle(forWritingAtPath: log.path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data("{not json\n".utf8))
            try handle.close()
            #expect(throws: DeviceError.malformedFile(path: log.path, reason: "line 2 is not an event")) {
                try log.events()
            }
        }
    }

    @Test func launchLogsLaunchThenToken() throws {
        try TestPhone.withDevice { device in
            try device.install(AppInstallation(bundleId: "com.example.news"))
            let result = try device.launch("com.example.news", at: TestPhone.start, source: .notification)
            let events = try EventLog(device: device).events()
            #expect(events.map(\.type) == ["launch", "device-token-sent"])
            #expect(events[0].details["source"] == "notification")
            #expect(events[1].details["token"] == result.deviceToken)
            #expect(try device.lastDeviceToken("com.example.news") == result.deviceToken)
            #expect(try device.lastDeviceToken("com.example.other") == nil)
        }
    }

    /// A device handle keeps the log it parsed while the file is unchanged: a change by anyone (an append, a file put
    /// in its place with the same length) is read again, never served from the earlier parse.
    @Test func aLogChangedBetweenReadsIsReadAgain() throws {
        try TestPhone.withDevice { device in
            let log = EventLog(device: device)
            try log.append(DeviceEvent(time: TestPhone.start, type: "first"))
            #expect(try log.events().map(\.type) == ["first"])
            #expect(try EventLog(device: device).events().map(\.type) == ["first"])
            // Another process appends (not through this handle).
            try Self.appendRaw(#"{"details":{},"time":"2026-12-01T10:00:00Z","type":"second"}"# + "\n", to: log)
            #expect(try log.events().map(\.type) == ["first", "second"])
            // The same number of bytes, other events, in a new file renamed over it.
            let text = try String(contentsOfFile: log.path, encoding: .utf8)
            let replaced = text.replacingOccurrences(of: "\"first\"", with: "\"FIRST\"")
            #expect(replaced.utf8.count == text.utf8.count)
            try Data(replaced.utf8).write(to: URL(fileURLWithPath: log.path + ".new"))
            #expect(rename(log.path + ".new", log.path) == 0)
            #expect(try log.events().map(\.type) == ["FIRST", "second"])
            // Removed: no events.
            #expect(unlink(log.path) == 0)
            #expect(try log.events().isEmpty)
        }
    }

    /// Appends `bytes` to the log as a crashed writer would have left them.
    static func appendRaw(_ bytes: String, to log: EventLog) throws {
        let handle = try #require(FileHandle(forWritingAtPath: log.path))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(bytes.utf8))
        try handle.close()
    }

    /// Torn finals as a crash cuts one write(2): mid-key, mid-value, after a nested object, one byte.
    @Test(arguments: ["{\"app\":\"x\",\"details\":{\"id\":\"N1\"}", "{\"app\":\"com.exa", "{", "{\"app\":null,\"det"])
    func aTornFinalLineIsToleratedReportedAndEndedByTheNextAppend(_ torn: String) throws {
        try TestPhone.withDevice { device in
            let log = EventLog(device: device)
            try log.append(DeviceEvent(time: TestPhone.start, type: "first"))
            try Self.appendRaw(torn, to: log)
            let contents = try log.contents()
            #expect(contents.events.map(\.type) == ["first"])
            #expect(contents.tornLines == [2])
            #expect(contents.endsTorn)
            let warning = try #require(EventLog.tornWarning(contents, path: log.path))
            #expect(warning.contains("\(log.path): line 2 was cut short"))
            // The next append starts a new line; the torn one stays skipped, silently, and the log is whole.
            try log.append(DeviceEvent(time: TestPhone.at(hours: 1), type: "second"))
            let after = try log.contents()
            #expect(after.events.map(\.type) == ["first", "second"])
            #expect(after.tornLines == [2])
            #expect(!after.endsTorn)
            #expect(EventLog.tornWarning(after, path: log.path) == nil)
            try log.append(DeviceEvent(time: TestPhone.at(hours: 2), type: "third"))
            #expect(try log.events().map(\.type) == ["first", "second", "third"])
        }
    }

    /// A whole event that only lost its newline is kept, before and after the next append.
    @Test func aFinalEventWithoutItsNewlineIsKept() throws {
        try TestPhone.withDevice { device in
            let log = EventLog(device: device)
            try log.append(DeviceEvent(time: TestPhone.start, type: "first"))
            try Self.appendRaw(#"{"details":{},"time":"2026-12-01T09:30:00Z","type":"whole"}"#, to: log)
            #expect(try log.contents().tornLines == [])
            #expect(try log.events().map(\.type) == ["first", "whole"])
            try log.append(DeviceEvent(time: TestPhone.at(hours: 1), type: "next"))
            #expect(try log.events().map(\.type) == ["first", "whole", "next"])
        }
    }

    /// Only the final line may be torn: an unended line followed by more lines is a malformed log.
    @Test func aTornLineInTheMiddleIsStillMalformed() throws {
        try TestPhone.withDevice { device in
            let log = EventLog(device: device)
            try log.append(DeviceEvent(time: TestPhone.start, type: "ok"))
            try Self.appendRaw("{\"app\":\"x\n", to: log)
            try log.append(DeviceEvent(time: TestPhone.at(hours: 1), type: "later"))
            #expect(throws: DeviceError.malformedFile(path: log.path, reason: "line 2 is not an event")) {
                try log.events()
            }
        }
    }
}
