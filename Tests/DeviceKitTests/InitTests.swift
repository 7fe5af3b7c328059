// InitTests: a fresh device has its own identity; init refuses what is not empty.
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct InitTests {
    @Test func twoDevicesHaveDifferentIdentities() throws {
        try withTemporaryDirectory { dir in
            let a = try Device.initialize("\(dir)/a", now: TestPhone.start)
            let b = try Device.initialize("\(dir)/b/nested", now: TestPhone.start)
            #expect(try a.identity().udid != b.identity().udid)
            #expect(try a.identity().created == TestPhone.start)
            #expect(UUID(uuidString: try a.identity().udid) != nil)
            #expect(try a.isFresh())
            for kind in ContainerKind.allCases {
                #expect(FileManager.default.fileExists(atPath: a.path(kind.directory)))
            }
        }
    }

    @Test func initRefusesAnExistingDeviceAndLeavesItsIdentity() throws {
        try withTemporaryDirectory { dir in
            let device = try Device.initialize("\(dir)/phone")
            let udid = try device.identity().udid
            #expect(throws: DeviceError.notEmpty(device.root)) { try Device.initialize(device.root) }
            #expect(try Device.open(device.root).identity().udid == udid)
        }
    }

    @Test func initRefusesAFile() throws {
        try withTemporaryDirectory { dir in
            try Data("x".utf8).write(to: URL(fileURLWithPath: "\(dir)/file"))
            #expect(throws: DeviceError.notEmpty("\(dir)/file")) { try Device.initialize("\(dir)/file") }
        }
    }

    @Test func openRefusesWhatIsNotADevice() throws {
        try withTemporaryDirectory { dir in
            #expect(throws: DeviceError.notADevice(dir)) { try Device.open(dir) }
            #expect { try Device.open("\(dir)/missing") } throws: { error in
                "\(error)".contains("\(dir)/missing") && "\(error)".contains("No such file")
            }
        }
    }

    @Test func freshnessEndsWithTheFirstFile() throws {
        try TestPhone.withDevice { device in
            try Data("".utf8).write(to: URL(fileURLWithPath: device.path("Library/SpringBoard/x")))
            #expect(try !device.isFresh())
        }
    }

    @Test(arguments: [(0.0, "0s"), (86_400, "24h"), (5_400, "1h30m"), (90, "1m30s"), (1.5, "1.5s"), (172_800, "48h")])
    func durationsRoundTrip(_ seconds: Double, _ text: String) {
        #expect(NudgeSettings.formatDuration(seconds) == text)
        #expect(NudgeSettings.parseDuration(text) == seconds)
    }

    @Test(arguments: ["", "24", "h", "-1h", "1x", "1h-5m", "1.2.3s", "24 h"])
    func malformedDurationsAreRefused(_ text: String) {
        #expect(NudgeSettings.parseDuration(text) == nil)
    }
}
