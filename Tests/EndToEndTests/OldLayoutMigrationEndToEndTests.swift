// OldLayoutMigrationEndToEndTests: a device in devicectl 0.1's layout (private Info.plist keys, four-key
// container metadata, `{widgets: [{app, kind}]}` home screen), its files built by hand, backs up, verifies and
// restores; the restored phone nudges as before and the next install writes iOS's layout.
import Foundation
import Testing
import TestSupport

@Suite struct OldLayoutMigrationEndToEndTests {
    typealias F = NudgeFixture

    static func plist(_ value: Any, _ path: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try PropertyListSerialization.data(fromPropertyList: value, format: .binary, options: 0)
            .write(to: URL(fileURLWithPath: path))
    }

    /// The files devicectl 0.1 wrote for News with its widget and App Group, on the device at `root`.
    static func makeOldNews(_ root: String) throws {
        func container(_ kind: String, _ id: String, _ uuid: String, _ contentClass: Int) throws -> String {
            let path = "\(root)/Containers/\(kind)/\(uuid)"
            try plist(
                ["MCMMetadataIdentifier": id, "MCMMetadataUUID": uuid, "MCMMetadataContentClass": contentClass,
                    "MCMMetadataVersion": 1], "\(path)/.com.apple.mobile_container_manager.metadata.plist")
            return path
        }
        let bundle = try container("Bundle/Application", F.news, "0CF5881E-0000-4000-8000-000000000001", 1)
        try plist(
            [
                "CFBundleIdentifier": F.news, "CFBundleName": "News", "CFBundleExecutable": "News",
                "CFBundleShortVersionString": "1.0", "CFBundleVersion": "1",
                "DevicectlAppGroups": ["group.com.example.news"],
                "DevicectlNudgeWidget": [
                    "policy": "once", "delaySeconds": 86_400.0, "title": "Welcome to your new iPhone",
                    "body": "Open News once.", "markerFileName": "device-restoration-marker.txt",
                    "flagKey": "notificationEnabled",
                ],
            ], "\(bundle)/News.app/Info.plist")
        for sub in ["Documents", "Library/Preferences", "Library/Caches", "tmp"] {
            let data = try container("Data/Application", F.news, "950A6BFF-0000-4000-8000-000000000002", 2)
            try FileManager.default.createDirectory(atPath: "\(data)/\(sub)", withIntermediateDirectories: true)
        }
        let group = try container(
            "Shared/AppGroup", "group.com.example.news", "3AC162B4-0000-4000-8000-000000000003", 7)
        try plist(["notificationEnabled": true], "\(group)/Library/Preferences/group.com.example.news.plist")
        _ = try container(
            "Data/PluginKitPlugin", "com.example.news.NudgeWidget", "40200FD0-0000-4000-8000-000000000004", 4)
        try plist(["widgets": [["app": F.news, "kind": "NudgeWidget"]]], "\(root)/Library/SpringBoard/IconState.plist")
    }

    @Test func anOldLayoutDeviceMigratesAndIsUpgradedByTheNextInstall() throws {
        try withTemporaryDirectory { dir in
            let old = "\(dir)/old"
            // Every step at a pinned time: the restored phone's clock starts at the restore's, before the refresh.
            let ok = { (arguments: [String]) throws -> RunResult in
                let result = try DevicectlBinary.run(arguments, environment: ["DEVICECTL_NOW": "2026-12-01T10:00:00Z"])
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
                return result
            }
            _ = try ok(["init", old, "--now", "2026-12-01T08:00:00Z"])
            try Self.makeOldNews(old)
            #expect(try ok(["widget", "list", old]).stdout.hasPrefix("page 1: com.example.news NudgeWidget medium"))
            _ = try ok(["backup", old, "-o", "\(dir)/old.tar"])
            _ = try ok(["verify", "\(dir)/old.tar"])
            _ = try ok(["restore", "\(dir)/old.tar", "\(dir)/new"])
            let refresh = try ok(["widget-refresh", "\(dir)/new", "--now", "2026-12-02T09:00:00Z"]).stdout
            #expect(refresh.contains("com.example.news: scheduled (restored)"), "\(refresh)")
            // The restore reinstalled News in iOS's layout; the old home screen is upgraded by its next change.
            let app = try ok(["container", "\(dir)/new", "--app", F.news]).stdout.trimmingCharacters(in: .newlines)
            #expect(FileManager.default.fileExists(atPath: "\(app)/NudgeConfiguration.plist"))
            _ = try ok(["install", "\(dir)/new", "--app", "com.example.mail", "--no-widget"])
            let bytes = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/new/Library/SpringBoard/IconState.plist"))
            let layout = try #require(
                try PropertyListSerialization.propertyList(from: bytes, format: nil) as? [String: Any])
            #expect(layout["widgets"] == nil && layout["iconLists"] is [[Any]])
            #expect(try ok(["widget", "list", "\(dir)/new"]).stdout.hasPrefix("page 1: com.example.news NudgeWidget"))
        }
    }
}
