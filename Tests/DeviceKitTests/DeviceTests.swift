import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct DeviceTests {
    @Test func initInstallLaunchAndFind() throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/phone"
            let device = try Device.initialize(root)
            #expect(Device.isDevice(at: root))
            #expect(try device.isFresh())
            let app = try device.install(AppInstallation(bundleId: "com.example.news", groups: ["group.com.example.news"]))
            #expect(app.name == "News")
            #expect(try !device.isFresh())
            #expect(try device.container(.group, identifier: "group.com.example.news") != nil)
            try device.placeWidget(app: "com.example.news")
            #expect(try device.homeScreen().widgets == ["com.example.news"])
            let now = try #require(Timestamp.parse("2026-12-01T09:00:00Z"))
            let result = try device.launch("com.example.news", at: now)
            #expect(result.deviceToken.count == 64)
            #expect(try device.defaults("group.com.example.news").value("notificationEnabled") as? Bool == true)
            let marker = try #require(result.markerPath)
            let xattr = try Shell.run("getfattr", ["--only-values", "-n", BackupExclusionAttribute.apple, marker])
            #expect(Array(xattr.stdoutData) == BackupExclusionAttribute.appleValue)
            let other = try Device.initialize("\(dir)/other")
            #expect(DeviceToken.derive(udid: try other.identity().udid, bundleId: "com.example.news") != result.deviceToken)
        }
    }

    @Test func initRefusesNonEmptyDirectory() throws {
        try withTemporaryDirectory { dir in
            _ = FileManager.default.createFile(atPath: "\(dir)/file", contents: Data())
            #expect(throws: DeviceError.notEmpty(dir)) { try Device.initialize(dir) }
        }
    }
}
