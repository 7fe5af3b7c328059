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

    /// The staged tree's set-up (links, skeleton, reinstall, modes) runs beside the manifest check unless the
    /// threads are pinned, where it follows the check; either way, when both fail, the manifest's problem is what
    /// the restore reports, and ROOT is unchanged.
    @Test(arguments: [false, true]) func theManifestsProblemComesBeforeTheSetUpsFailure(pinned: Bool) throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            let app = Manifest.App(bundleId: "com.example.news", name: "News", groups: [], widget: nil)
            let content = Array("the article as it was backed up\n".utf8)
            // SpringBoard's directory is a file here: the set-up fails where it makes the skeleton.
            var bytes = TarBuilder.archive(
                [.directory("Library"), .file("Library/SpringBoard", Array("not a directory".utf8)),
                 .file("Documents.txt", content)], apps: [app])
            try scratch.write(bytes)
            let before = try scratch.snapshot()
            do {
                try scratch.restore { $0.pinsThreads = pinned }
                Issue.record("restored over a file where SpringBoard's directory must be")
            } catch RestoreError.verificationFailed(let problems, _) {
                Issue.record("the set-up's failure reported as the manifest's: \(problems)")
            } catch {
                #expect("\(error)".contains("SpringBoard"), "\(error)")
            }
            #expect(try scratch.snapshot() == before)
            // One byte of the file's data changed: its digest no longer matches the manifest's line.
            let data = try #require(bytes.firstRange(of: content))
            bytes[data.lowerBound] ^= 0x20
            try scratch.write(bytes)
            do {
                try scratch.restore { $0.pinsThreads = pinned }
                Issue.record("restored a file whose data differs from the manifest")
            } catch RestoreError.verificationFailed(let problems, _) {
                #expect(problems == ["SHA-256 mismatch for 'Documents.txt': the data differs from what the manifest recorded"])
            }
            #expect(try scratch.snapshot() == before)
        }
    }
}
