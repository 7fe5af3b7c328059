// ContainerTests: containers are found by identifier, groups are shared, a reinstall keeps data.
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct ContainerTests {
    @Test func containerIsFoundByIdentifierAfterItsDirectoryIsRenamed() throws {
        try TestPhone.withDevice { device in
            try device.install(AppInstallation(bundleId: "com.example.news", groups: ["group.com.example.news"]))
            let group = try #require(try device.container(.group, identifier: "group.com.example.news"))
            try Data("kept".utf8).write(to: URL(fileURLWithPath: "\(group.path)/note.txt"))
            let data = try #require(try device.container(.data, identifier: "com.example.news"))
            // Move both UUID directories, as a restore onto another device would give them new names.
            let newGroupPath = "\(device.path(ContainerKind.group.directory))/11111111-2222-3333-4444-555555555555"
            try FileManager.default.moveItem(atPath: group.path, toPath: newGroupPath)
            let newDataPath = "\(device.path(ContainerKind.data.directory))/AAAAAAAA-2222-3333-4444-555555555555"
            try FileManager.default.moveItem(atPath: data.path, toPath: newDataPath)

            let found = try #require(try device.container(.group, identifier: "group.com.example.news"))
            #expect(found.path == newGroupPath)
            #expect(found.uuid == "11111111-2222-3333-4444-555555555555")
            #expect(found.relativePath == "Containers/Shared/AppGroup/11111111-2222-3333-4444-555555555555")
            #expect(try String(contentsOfFile: "\(found.path)/note.txt", encoding: .utf8) == "kept")
            #expect(try device.app("com.example.news").dataContainer.path == newDataPath)
            #expect(try device.defaults("group.com.example.news").path.hasPrefix(newGroupPath + "/"))
        }
    }

    @Test func twoAppsShareOneGroupContainer() throws {
        try TestPhone.withDevice { device in
            let news = try device.install(
                AppInstallation(bundleId: "com.example.news", groups: ["group.com.example.shared"]))
            let sports = try device.install(
                AppInstallation(
                    bundleId: "com.example.sports", groups: ["group.com.example.shared", "group.com.example.sports"]))
            #expect(try device.containers(.group).count == 2)
            #expect(news.groups == ["group.com.example.shared"])
            #expect(sports.groups == ["group.com.example.shared", "group.com.example.sports"])
            try device.defaults("group.com.example.shared").set("written", to: "by news")
            // Both apps resolve the same suite file, so each sees what the other wrote.
            let suite = try device.defaults("group.com.example.shared")
            #expect(try suite.value("written") as? String == "by news")
            #expect(news.dataContainer.path != sports.dataContainer.path)
            #expect(try device.apps().map(\.bundleId) == ["com.example.news", "com.example.sports"])
        }
    }

    @Test func reinstallKeepsDataAndGroupContainers() throws {
        try TestPhone.withDevice { device in
            let first = try device.install(
                AppInstallation(bundleId: "com.example.news", groups: ["group.com.example.news"]))
            try Data("draft".utf8).write(to: URL(fileURLWithPath: "\(first.dataContainer.path)/Documents/draft.txt"))
            try device.defaults("com.example.news").set("launches", to: 3)
            let second = try device.install(
                AppInstallation(
                    bundleId: "com.example.news", groups: ["group.com.example.news"],
                    widget: NudgeSettings(policy: .asPublished, delaySeconds: 60)))
            #expect(second.dataContainer == first.dataContainer)
            #expect(second.bundleContainer == first.bundleContainer)
            #expect(second.widget?.policy == .asPublished)
            #expect(try device.containers(.data).count == 1)
            #expect(try device.containers(.group).count == 1)
            #expect(
                try String(contentsOfFile: "\(second.dataContainer.path)/Documents/draft.txt", encoding: .utf8)
                    == "draft")
            #expect(try device.defaults("com.example.news").value("launches") as? Int == 3)
        }
    }

    @Test func widgetAppWithoutGroupGetsOneAndAPluginContainer() throws {
        try TestPhone.withDevice { device in
            let app = try device.install(AppInstallation(bundleId: "com.example.solo"))
            #expect(app.groups == ["group.com.example.solo"])
            #expect(try device.container(.plugin, identifier: "com.example.solo.NudgeWidget") != nil)
            let plain = try device.install(AppInstallation(bundleId: "com.example.plain", widget: nil))
            #expect(plain.groups.isEmpty)
            #expect(try device.container(.plugin, identifier: "com.example.plain.NudgeWidget") == nil)
        }
    }

    @Test func metadataAndInfoPlistAreWhatIOSWrites() throws {
        try TestPhone.withDevice { device in
            let app = try device.install(
                AppInstallation(bundleId: "com.example.news", groups: ["group.com.example.news"]))
            let metadata = try #require(
                try PropertyListFile.readDictionary(
                    "\(app.dataContainer.path)/\(DeviceLayout.containerMetadata)"))
            #expect(metadata["MCMMetadataIdentifier"] as? String == "com.example.news")
            #expect(metadata["MCMMetadataUUID"] as? String == app.dataContainer.uuid)
            let info = try #require(
                try PropertyListFile.readDictionary("\(app.bundleContainer.path)/News.app/Info.plist"))
            #expect(info["CFBundleIdentifier"] as? String == "com.example.news")
            #expect(info["CFBundlePackageType"] as? String == "APPL")
            #expect(app.groups == ["group.com.example.news"] && app.widget != nil)
            #expect(metadata["MCMMetadataVersion"] as? Int == 6 && metadata["MCMMetadataSchemaVersion"] as? Int == 1)
            #expect(metadata["MCMMetadataUserIdentity"] is [String: Any])
            let plugin = try #require(try device.container(.plugin, identifier: "com.example.news.NudgeWidget"))
            let pluginMetadata = try #require(
                try PropertyListFile.readDictionary("\(plugin.path)/\(DeviceLayout.containerMetadata)"))
            #expect(pluginMetadata["MCMMetadataContentClass"] as? Int == 4)
            #expect(
                (pluginMetadata["MCMMetadataInfo"] as? [String: Any])?["com.apple.MobileInstallation.ParentBundleID"]
                    as? String == "com.example.news")
            for sub in ["Documents", "Library/Preferences", "Library/Caches", "tmp"] {
                var isDirectory: ObjCBool = false
                #expect(
                    FileManager.default.fileExists(
                        atPath: "\(app.dataContainer.path)/\(sub)", isDirectory: &isDirectory))
                #expect(isDirectory.boolValue)
            }
        }
    }

    @Test(arguments: [
        "", ".", "..", "a/b", "../etc", "com.example.news/..", "with space", String(repeating: "a", count: 256),
    ])
    func invalidIdentifiersAreRefused(_ identifier: String) throws {
        #expect(!Device.isValidIdentifier(identifier))
        try TestPhone.withDevice { device in
            let bundle = #expect(throws: DeviceValueError.self) {
                try device.install(AppInstallation(bundleId: identifier))
            }
            #expect(bundle?.field == "bundleId")
            let group = #expect(throws: DeviceValueError.self) {
                try device.install(AppInstallation(bundleId: "com.example.ok", groups: [identifier]))
            }
            #expect(group?.field == "groups[0]")
            let fresh = try device.isFresh()
            #expect(fresh)
        }
    }
}
