// AdoptEndToEndTests: a Simulator-shaped data/ directory built by hand is adopted as a device (only DeviceLocal
// added), and migrates through backup and restore with its apps, App Group and SpringBoard home screen; an app
// whose App Groups live only in its Mach-O executable (a Simulator build) keeps them too.
import Foundation
import Testing
import TestSupport

@Suite struct AdoptEndToEndTests {
    static func plist(_ value: Any, _ path: String, xml: Bool = false) throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try PropertyListSerialization.data(fromPropertyList: value, format: xml ? .xml : .binary, options: 0)
            .write(to: URL(fileURLWithPath: path))
    }

    /// A Simulator data/ directory: News with its widget extension, an App Group, a plugin container, a home
    /// screen with a system widget stacked on the news widget, and system data devicectl knows nothing of.
    static func makeDataDirectory(_ data: String) throws {
        func metadata(_ kind: String, _ id: String, _ uuid: String, _ contentClass: Int, info: [String: Any] = [:])
            throws -> String
        {
            let path = "\(data)/Containers/\(kind)/\(uuid)"
            try plist(
                ["MCMMetadataIdentifier": id, "MCMMetadataUUID": uuid, "MCMMetadataContentClass": contentClass,
                    "MCMMetadataVersion": 6, "MCMMetadataSchemaVersion": 1, "MCMMetadataInfo": info],
                "\(path)/.com.apple.mobile_container_manager.metadata.plist")
            return path
        }
        let bundle = try metadata("Bundle/Application", "com.example.news", "B0000000-0000-4000-8000-000000000001", 1)
        let app = "\(bundle)/News.app"
        try plist(
            ["CFBundleIdentifier": "com.example.news", "CFBundleName": "News", "CFBundleDisplayName": "News",
                "CFBundlePackageType": "APPL", "CFBundleShortVersionString": "3.2", "CFBundleVersion": "77",
                "UIDeviceFamily": [1]], "\(app)/Info.plist")
        try plist(["com.apple.security.application-groups": ["group.com.example.news"]],
            "\(app)/archived-expanded-entitlements.xcent", xml: true)
        try plist(
            ["policy": "once", "delaySeconds": 0.0, "title": "Welcome", "body": "Open News", "markerFileName":
                "device-restoration-marker.txt", "flagKey": "notificationEnabled"], "\(app)/NudgeConfiguration.plist")
        try plist(
            ["CFBundleIdentifier": "com.example.news.NudgeWidget", "CFBundlePackageType": "XPC!",
                "NSExtension": ["NSExtensionPointIdentifier": "com.apple.widgetkit-extension"]],
            "\(app)/PlugIns/NudgeWidget.appex/Info.plist")
        let dataContainer = try metadata(
            "Data/Application", "com.example.news", "D0000000-0000-4000-8000-000000000002", 2)
        try FileManager.default.createDirectory(
            atPath: "\(dataContainer)/Documents", withIntermediateDirectories: true)
        try Data("notes".utf8).write(to: URL(fileURLWithPath: "\(dataContainer)/Documents/notes.txt"))
        let group = try metadata(
            "Shared/AppGroup", "group.com.example.news", "A0000000-0000-4000-8000-000000000003", 7)
        try plist(["notificationEnabled": true], "\(group)/Library/Preferences/group.com.example.news.plist")
        _ = try metadata(
            "Data/PluginKitPlugin", "com.example.news.NudgeWidget", "C0000000-0000-4000-8000-000000000004", 4,
            info: ["com.apple.MobileInstallation.ParentBundleID": "com.example.news"])
        let stack: [String: Any] = [
            "iconType": "custom", "displayIdentifier": "5E9A0C1B-0000-4000-8000-000000000010", "gridSize": "medium",
            "allowsSuggestions": true, "allowsExternalSuggestions": true,
            "elements": [
                ["elementType": "widget", "widgetIdentifier": "NudgeWidget", "bundleIdentifier":
                    "com.example.news.NudgeWidget", "containerBundleIdentifier": "com.example.news",
                    "uniqueIdentifier": "0E9C4D2A-7B61-4F0E-8A3C-5D2B9F1E6C47"],
                ["elementType": "widget", "widgetIdentifier": "com.apple.weather", "bundleIdentifier":
                    "com.apple.weather.widget", "containerBundleIdentifier": "com.apple.weather",
                    "uniqueIdentifier": "5A6B7C8D-9E0F-4A1B-8C2D-3E4F5A6B7C8D"],
            ],
        ]
        try plist(
            ["iconLists": [["com.example.news", stack]],
                "listUniqueIdentifiers": ["A4D0C1B2-5E6F-4789-90AB-CDEF01234567"],
                "buttonBar": ["com.apple.mobilephone"], "widgetVersion": 1],
            "\(data)/Library/SpringBoard/IconState.plist", xml: true)
        try plist(["SBShowBatteryPercentage": true], "\(data)/Library/Preferences/com.apple.springboard.plist")
    }

    @Test func simulatorDataDirectoryIsAdoptedAndMigrates() throws {
        try withTemporaryDirectory { dir in
            let data = "\(dir)/Devices/UDID/data"
            try Self.makeDataDirectory(data)
            let refused = try DevicectlBinary.run(["widget", "list", data])
            #expect(refused.status == 1 && refused.stderr.contains("init --adopt"), "\(refused.stderr)")
            let adopted = try DevicectlBinary.run(["init", "--adopt", data, "--now", "2026-12-01T09:00:00Z"])
            #expect(adopted.status == 0, "\(adopted.stderr)")
            #expect(adopted.stdout.contains("1 app (com.example.news)"))
            let added = try FileManager.default.contentsOfDirectory(atPath: data).sorted()
            #expect(added == ["Containers", "DeviceLocal", "Library"])
            let list = try DevicectlBinary.run(["widget", "list", data, "--json"])
            #expect(list.stdout.contains("\"kind\":\"NudgeWidget\"") && list.stdout.contains("com.apple.weather"))

            let newPhone = try Self.migrate(data, in: dir)
            let restored = try DevicectlBinary.run(["widget", "list", newPhone, "--json"])
            #expect(restored.stdout == list.stdout, "the SpringBoard layout survives the migration")
            let notes = try DevicectlBinary.run(["container", newPhone, "--app", "com.example.news", "data"])
            let path = notes.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(try String(contentsOfFile: "\(path)/Documents/notes.txt", encoding: .utf8) == "notes")
            let refresh = try DevicectlBinary.run(["widget-refresh", newPhone, "--now", "2026-12-02T09:00:00Z"])
            #expect(refresh.stdout.contains("com.example.news: scheduled (restored)"), "\(refresh.stdout)")
            #expect(refresh.stderr.contains("com.apple.weather"), "the system widget is skipped, with a warning")
        }
    }

    /// The App Groups `status --json` shows for `app` on the device at `root`, and each group's member apps.
    static func statusGroups(_ root: String, app: String) throws -> (app: [String], members: [String: [String]]) {
        let status = try DevicectlBinary.run(["status", root, "--json"])
        #expect(status.status == 0, "\(status.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any] ?? [:]
        let apps = json["apps"] as? [[String: Any]] ?? []
        let groups = apps.first { $0["bundleId"] as? String == app }?["groups"] as? [String] ?? []
        var members: [String: [String]] = [:]
        for group in json["groups"] as? [[String: Any]] ?? [] {
            if let id = group["id"] as? String { members[id] = group["apps"] as? [String] ?? [] }
        }
        return (groups, members)
    }

    @Test func anAppWhoseGroupsLiveOnlyInItsExecutableIsAdoptedWithThemAndMigrates() throws {
        try withTemporaryDirectory { dir in
            let data = "\(dir)/Devices/UDID/data"
            try Self.makeDataDirectory(data)
            let bundle = "\(data)/Containers/Bundle/Application/B0000000-0000-4000-8000-000000000001/News.app"
            try FileManager.default.removeItem(atPath: "\(bundle)/archived-expanded-entitlements.xcent")
            let info = try #require(
                try PropertyListSerialization.propertyList(
                    from: Data(contentsOf: URL(fileURLWithPath: "\(bundle)/Info.plist")), format: nil)
                    as? [String: Any])
            try Self.plist(info.merging(["CFBundleExecutable": "News"]) { $1 }, "\(bundle)/Info.plist")
            // A Simulator universal build: the entitlements in each slice's __TEXT,__entitlements section.
            let entitlements = MachOBuilder.entitlements(groups: ["group.com.example.news"])
            let executable = MachOBuilder.fat([
                (MachOBuilder.x86_64, MachOBuilder.thin(cpu: MachOBuilder.x86_64, section: entitlements)),
                (MachOBuilder.arm64, MachOBuilder.thin(section: entitlements)),
            ])
            try Data(executable).write(to: URL(fileURLWithPath: "\(bundle)/News"))

            let adopted = try DevicectlBinary.run(["init", "--adopt", data, "--now", "2026-12-01T09:00:00Z"])
            #expect(adopted.status == 0, "\(adopted.stderr)")
            let before = try Self.statusGroups(data, app: "com.example.news")
            #expect(before.app == ["group.com.example.news"], "the group comes from the executable")
            #expect(before.members["group.com.example.news"] == ["com.example.news"])

            let newPhone = try Self.migrate(data, in: dir)
            let after = try Self.statusGroups(newPhone, app: "com.example.news")
            #expect(after.app == before.app && after.members == before.members, "backup and restore keep the group")
            let refresh = try DevicectlBinary.run(["widget-refresh", newPhone, "--now", "2026-12-02T09:00:00Z"])
            #expect(refresh.stdout.contains("com.example.news: scheduled (restored)"), "\(refresh.stdout)")
        }
    }

    /// Backs `data` up and restores it onto `dir/new` (both must succeed); returns the new phone's root.
    static func migrate(_ data: String, in dir: String, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> String
    {
        let archive = "\(dir)/phone.tar"
        // The restored phone's clock starts at the restore's time: pinned, so the later `--now` stays later.
        let clock = ["DEVICECTL_NOW": "2026-12-01T10:00:00Z"]
        let backup = try DevicectlBinary.run(["backup", data, "-o", archive], environment: clock)
        #expect(backup.status == 0, "\(backup.stderr)", sourceLocation: sourceLocation)
        let newPhone = "\(dir)/new"
        let restore = try DevicectlBinary.run(["restore", archive, newPhone], environment: clock)
        #expect(restore.status == 0, "\(restore.stderr)", sourceLocation: sourceLocation)
        return newPhone
    }
}
