// EventLogTests: the device-local event log is read back oldest first, stable for equal times.
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct EventLogTests {
    @Test func eventsComeBackOldestFirstAndStable() throws {
        try DeviceKitFixture.withDevice { device in
            let log = EventLog(device: device)
            #expect(log.path == device.path(DeviceLayout.events))
            try log.append(DeviceEvent(time: DeviceKitFixture.time(hours: 2), type: "second", app: "a"))
            try log.append(DeviceEvent(time: DeviceKitFixture.time(hours: 1), type: "first"))
            try log.append(DeviceEvent(time: DeviceKitFixture.time(hours: 2), type: "third", details: ["k": "v"]))
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
        try DeviceKitFixture.withDevice { device in
            let log = EventLog(device: device)
            try log.append(DeviceEvent(time: DeviceKitFixture.time(), type: "ok"))
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
        try DeviceKitFixture.withDevice { device in
            try device.install(AppInstallation(bundleId: "com.example.news"))
            let result = try device.launch("com.example.news", at: DeviceKitFixture.time(), source: .notification)
            let events = try EventLog(device: device).events()
            #expect(events.map(\.type) == ["launch", "device-token-sent"])
            #expect(events[0].details["source"] == "notification")
            #expect(events[1].details["token"] == result.deviceToken)
            #expect(try device.lastDeviceToken("com.example.news") == result.deviceToken)
            #expect(try device.lastDeviceToken("com.example.other") == nil)
        }
    }
}
