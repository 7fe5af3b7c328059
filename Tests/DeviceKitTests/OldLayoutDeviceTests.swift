// OldLayoutDeviceTests: a device root made by an earlier devicectl (private Info.plist keys, four-key container
// metadata, {widgets} home screen), built by hand, keeps working and is upgraded by the next install.
import DeviceKit
import Foundation
import Testing
import TestSupport

@Suite struct OldLayoutDeviceTests {
    /// Writes, by hand, what the old devicectl wrote for com.example.news (bundle, data, group, plugin).
    static func makeOldApp(on device: Device) throws {
        func container(_ kind: ContainerKind, _ id: String, _ uuid: String) throws -> String {
            let path = device.path("\(kind.directory)/\(uuid)")
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            try PropertyListFile.write(
                ["MCMMetadataIdentifier": id, "MCMMetadataUUID": uuid, "MCMMetadataContentClass": kind.contentClass,
                    "MCMMetadataVersion": 1], to: "\(path)/\(DeviceLayout.containerMetadata)")
            return path
        }
        let bundle = try container(.bundle, "com.example.news", "00000000-0000-4000-8000-000000000001")
        _ = try container(.data, "com.example.news", "00000000-0000-4000-8000-000000000002")
        _ = try container(.group, "group.com.example.news", "00000000-0000-4000-8000-000000000003")
        _ = try container(.plugin, "com.example.news.NudgeWidget", "00000000-0000-4000-8000-000000000004")
        try FileManager.default.createDirectory(atPath: "\(bundle)/News.app", withIntermediateDirectories: true)
        try PropertyListFile.write(
            [
                "CFBundleIdentifier": "com.example.news", "CFBundleName": "News", "CFBundleExecutable": "News",
                "CFBundleShortVersionString": "1.0", "CFBundleVersion": "1",
                "DevicectlAppGroups": ["group.com.example.news"],
                "DevicectlNudgeWidget": [
                    "policy": "as-published", "delaySeconds": 60.0, "title": "T", "body": "B",
                    "markerFileName": "m.txt", "flagKey": "armed",
                ],
            ], to: "\(bundle)/News.app/Info.plist")
        try PropertyListFile.write(
            ["widgets": [["app": "com.example.news", "kind": "NudgeWidget"]]],
            to: device.path(DeviceLayout.homeScreen))
    }

    @Test func oldAppIsReadAsBeforeAndUpgradedByTheNextInstall() throws {
        try TestPhone.withDevice { device in
            try Self.makeOldApp(on: device)
            try device.validate()
            let old = try device.app("com.example.news")
            #expect(old.isLegacy && old.groups == ["group.com.example.news"])
            #expect(old.widget?.policy == .asPublished && old.widget?.markerFileName == "m.txt")
            #expect(old.widgetExtension?.bundleId == "com.example.news.NudgeWidget")
            #expect(try device.homeScreen().placedWidgets.map(\.app) == ["com.example.news"])
            // A reinstall with the app's own settings rewrites the bundle in the new layout, keeping them.
            try device.install(old.installation)
            let new = try device.app("com.example.news")
            #expect(!new.isLegacy && new.groups == old.groups && new.widget == old.widget)
            let info = try #require(try PropertyListFile.readDictionary(device.path("\(new.appPath)/Info.plist")))
            #expect(info["DevicectlAppGroups"] == nil && info["DevicectlNudgeWidget"] == nil)
            #expect(try device.containers(.group).count == 1, "the group container is kept, not orphaned")
        }
    }

    /// The rows iLEAPP's home-screen parser (scripts/artifacts/springboard.py, `icons_screen`) shows, computed
    /// from the fields it reads, documented from its source: plistlib loads the file; `iconLists` page N gives
    /// "Page N" rows, a string is an App, a dict with `listType` a Folder, a dict with `gridSize` and
    /// `elementType` a Widget named by `widgetIdentifier`, one with `gridSize` and `elements` a Stack; any other
    /// dict is skipped; `buttonBar` strings are Dock apps. (iLEAPP is not on PyPI, so it cannot be installed.)
    static let ileappRows = """
        import plistlib, sys
        d = plistlib.load(open(sys.argv[1], 'rb'))
        def name(w):
            return (w.get('widgetIdentifier') if w.get('elementType') == 'widget' else w.get('elementType')) or ''
        for i, page in enumerate(d.get('iconLists', [])):
            for e in page:
                if isinstance(e, str): print(f'Page {i}|App|{e}|')
                elif isinstance(e, dict) and 'listType' in e: print(f"Page {i}|Folder|{e.get('displayName', '')}|")
                elif isinstance(e, dict) and 'gridSize' in e:
                    if 'elementType' in e: print(f"Page {i}|Widget|{name(e)}|{e['gridSize']}")
                    elif 'elements' in e:
                        print(f"Page {i}|Stack|{', '.join(name(w) for w in e['elements'])}|{e['gridSize']}")
        for b in d.get('buttonBar', []): print(f'Dock|App|{b}|')
        """

    @Test func iLEAPPReadsTheAppsWidgetsAndStacksDevicectlWrites() throws {
        try TestPhone.withDevice { device in
            try device.install(AppInstallation(bundleId: "com.example.news"))
            try device.install(AppInstallation(bundleId: "com.example.mail"))
            let first = try device.placeWidget(
                HomeScreen.Placement(
                    app: "com.example.news", extensionId: "", kind: "NudgeWidget", size: "medium", page: nil,
                    stackWith: nil))
            _ = try device.placeWidget(
                HomeScreen.Placement(
                    app: "com.example.mail", extensionId: "", kind: "NudgeWidget", size: "medium", page: nil,
                    stackWith: first.widget.id))
            _ = try device.placeWidget(
                HomeScreen.Placement(
                    app: "com.example.mail", extensionId: "", kind: "NudgeWidget", size: "small", page: 2,
                    stackWith: nil))
            let result = try Shell.run(
                "/usr/bin/python3", ["-c", Self.ileappRows, device.path(DeviceLayout.homeScreen)])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stdout.split(separator: "\n") == [
                    "Page 0|App|com.example.news|", "Page 0|App|com.example.mail|",
                    "Page 0|Stack|NudgeWidget, NudgeWidget|medium", "Page 1|Widget|NudgeWidget|small",
                ])
        }
    }
}
