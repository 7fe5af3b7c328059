// ManifestRecordTests: the header's app records are the manifest's own types, pinned byte for byte, so a
// property renamed in DeviceKit's NudgeSettings cannot change the archive format; archives made before read back.
import DeviceKit
import Foundation
import Testing

@testable import BackupKit

@Suite struct ManifestRecordTests {
    static func encoded(_ app: Manifest.App) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(app), as: UTF8.self)
    }

    /// The spelling main's backups wrote (fd5290d), for an app with a widget and one without.
    static let withWidget =
        #"{"bundleId":"com.example.news","groups":["group.com.example.news"],"name":"News","widget":{"#
        + #""body":"Open News once so it can keep sending you notifications on this device.","delaySeconds":86400,"#
        + #""flagKey":"notificationEnabled","markerFileName":"device-restoration-marker.txt","policy":"once","#
        + #""title":"Welcome to your new iPhone"}}"#
    static let withoutWidget = #"{"bundleId":"com.example.mail","groups":[],"name":"Mail","widget":null}"#

    @Test func anAppRecordIsWrittenAsBefore() throws {
        let news = Manifest.App(
            bundleId: "com.example.news", name: "News", groups: ["group.com.example.news"],
            widget: Manifest.WidgetSettings(NudgeSettings(appName: "News")))
        #expect(try Self.encoded(news) == Self.withWidget)
        let mail = Manifest.App(bundleId: "com.example.mail", name: "Mail", groups: [], widget: nil)
        #expect(try Self.encoded(mail) == Self.withoutWidget)
    }

    @Test func anAppRecordWrittenBeforeReadsBackToTheSameSettings() throws {
        let decoded = try JSONDecoder().decode(Manifest.App.self, from: Data(Self.withWidget.utf8))
        #expect(decoded.widget?.settings == NudgeSettings(appName: "News"))
        let asPublished = Self.withWidget.replacingOccurrences(of: #""once""#, with: #""as-published""#)
        let other = try JSONDecoder().decode(Manifest.App.self, from: Data(asPublished.utf8))
        #expect(other.widget?.settings.policy == .asPublished)
        #expect(try JSONDecoder().decode(Manifest.App.self, from: Data(Self.withoutWidget.utf8)).widget == nil)
    }
}
