// RestoreAppsTests: a restore reinstalls the manifest's apps (bundles are never backed up) and keeps the
// restored data, App Group and widget containers and the home screen; the device keeps its identity.
import BackupKit
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct RestoreAppsTests {
    @Test func appsAreReinstalledOverRestoredContainers() throws {
        try withTemporaryDirectory { base in
            // The old phone: an app with a widget on the home screen, a document, a flag in its App Group.
            let old = base + "/old"
            let phone = try Device.initialize(old)
            let news = try phone.install(
                AppInstallation(bundleId: "com.example.news", name: "News", groups: ["group.com.example.news"]))
            try phone.install(AppInstallation(bundleId: "com.example.mail", widget: nil))
            try phone.placeWidget(app: "com.example.news")
            try Data("read later\n".utf8).write(
                to: URL(fileURLWithPath: news.dataContainer.path + "/Documents/article.txt"))
            let group = try phone.groupContainer("group.com.example.news")
            let members = try TarBuilder.members(ofTree: old) { path in
                path == DeviceLayout.deviceLocal || path.hasPrefix(ContainerKind.bundle.directory + "/")
                    || path.hasSuffix("/Library/Caches") || path.hasSuffix("/tmp")
            }
            let apps = try phone.apps().map {
                Manifest.App(
                    bundleId: $0.bundleId, name: $0.name, groups: $0.groups,
                    widget: $0.widget.map(Manifest.WidgetSettings.init))
            }
            let scratch = try RestoreScratch(base: base)
            try scratch.write(TarBuilder.archive(members, apps: apps, widgets: ["com.example.news"]))
            let udid = try Device.open(scratch.root).identity().udid

            let report = try scratch.restore()
            #expect(report.apps == ["com.example.mail", "com.example.news"])
            let restored = try Device.open(scratch.root)
            #expect(try restored.identity().udid == udid)
            let restoredApps = try restored.apps()
            #expect(restoredApps.map(\.bundleId) == ["com.example.mail", "com.example.news"])
            let restoredNews = try restored.app("com.example.news")
            #expect(restoredNews.dataContainer.uuid == news.dataContainer.uuid)
            #expect(restoredNews.widget == news.widget)
            #expect(restoredNews.groups == ["group.com.example.news"])
            #expect(try restored.groupContainer("group.com.example.news").uuid == group.uuid)
            #expect(try restored.container(.plugin, identifier: "com.example.news.NudgeWidget") != nil)
            #expect(try restored.homeScreen().widgets == ["com.example.news"])
            let article = try String(
                contentsOfFile: restoredNews.dataContainer.path + "/Documents/article.txt", encoding: .utf8)
            #expect(article == "read later\n")
            #expect(FileManager.default.fileExists(atPath: restoredNews.bundleContainer.path))
            for directory in DeviceLayout.neverBackedUpInDataContainers {
                #expect(FileManager.default.fileExists(atPath: restoredNews.dataContainer.path + "/" + directory))
            }
        }
    }

    @Test func widgetMissingFromTheRestoredHomeScreenIsPlaced() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            let app = Manifest.App(
                bundleId: "com.example.news", name: "News", groups: [], widget: Manifest.WidgetSettings(NudgeSettings()))
            try scratch.write(TarBuilder.archive([.directory("Documents")], apps: [app], widgets: ["com.example.news"]))
            try scratch.restore()
            #expect(try Device.open(scratch.root).homeScreen().widgets == ["com.example.news"])
        }
    }

    @Test func invalidAppInManifestFailsUntouched() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            let app = Manifest.App(bundleId: "../../evil", name: "Evil", groups: [], widget: nil)
            try scratch.write(TarBuilder.archive([.directory("Documents")], apps: [app]))
            let before = try scratch.snapshot()
            #expect(throws: RestoreError.self) { try scratch.restore() }
            #expect(try scratch.snapshot() == before)
        }
    }
}
