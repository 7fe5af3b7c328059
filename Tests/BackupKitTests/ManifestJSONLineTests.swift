// ManifestJSONLineTests: the manifest's header, totals and members lines are what JSONEncoder (.sortedKeys,
// .withoutEscapingSlashes) wrote before, for seeded headers with odd texts, absent values and every widget policy.
@testable import BackupKit
import DeviceKit
import Foundation
import Testing

@Suite struct ManifestJSONLineTests {
    private static let texts = ["", "News", "com.example.news", "group.a/b", "quote \" \\", "tab\tline\n\u{1}\u{7F}",
                                "é中😀\u{2028}", "Zed", "_x"]

    private struct Seeded {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        mutating func text() -> String { ManifestJSONLineTests.texts[Int(next()) % ManifestJSONLineTests.texts.count] }
        mutating func texts() -> [String] { (0..<Int(next() % 4)).map { _ in text() } }
    }

    private func encoded(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }

    @Test func headersAsJSONEncoderWroteThem() throws {
        var seed = Seeded(state: 11)
        let delays: [Double] = [0, 86_400, 0.5, 1e-7, 3_600.25, 1e16]
        for round in 0..<300 {
            let apps = (0..<Int(seed.next() % 4)).map { index -> Manifest.App in
                var widget: Manifest.WidgetSettings?
                if seed.next() % 2 == 0 {
                    var settings = Manifest.WidgetSettings(NudgeSettings(appName: seed.text()))
                    settings.policy = seed.next() % 2 == 0 ? .once : .asPublished
                    settings.delaySeconds = delays[Int(seed.next()) % delays.count]
                    settings.title = seed.text()
                    settings.flagKey = seed.text()
                    widget = settings
                }
                return Manifest.App(bundleId: seed.text() + "\(index)", name: seed.text(), groups: seed.texts(), widget: widget)
            }
            let header = Manifest.Header(
                tool: "devicectl " + seed.text(), created: seed.text(),
                source: Manifest.Source(udid: round % 5 == 0 ? nil : seed.text()), apps: apps, groups: seed.texts(),
                widgets: seed.texts().map(Manifest.Widget.init(app:)),
                engine: round % 4 == 0 ? nil : AppleBackupEngine.allCases[Int(seed.next()) % AppleBackupEngine.allCases.count])
            #expect(try header.jsonLine() == (try encoded(header)), "round \(round)")
        }
    }

    @Test func aWidgetDelayJSONCannotHoldIsRefusedLikeJSONEncoder() throws {
        var settings = Manifest.WidgetSettings(NudgeSettings())
        settings.delaySeconds = .infinity
        let header = Manifest.Header(
            tool: "t", created: "c", source: Manifest.Source(udid: nil),
            apps: [Manifest.App(bundleId: "a", name: "A", groups: [], widget: settings)], groups: [], widgets: [])
        #expect(throws: BackupError.self) { try header.jsonLine() }
        #expect(throws: (any Error).self) { try encoded(header) }
    }

    @Test func totalsAndMembersAsJSONEncoderWroteThem() throws {
        var seed = Seeded(state: 5)
        for _ in 0..<200 {
            var byReason: [String: Manifest.Count] = [:]
            for _ in 0..<Int(seed.next() % 5) {
                byReason[seed.text()] = Manifest.Count(files: seed.next(), bytes: seed.next() << 20)
            }
            let totals = Manifest.Totals(
                files: seed.next(), bytes: UInt64.max - seed.next(), directories: seed.next() % 3, symlinks: 0,
                hardlinks: seed.next(), excluded: Manifest.Excluded(files: seed.next(), bytes: seed.next(), byReason: byReason))
            #expect(totals.jsonLine() == (try encoded(totals)))
            let members = Manifest.Members(count: seed.next(), sha256: seed.text(), manifestSha256: String(repeating: "0", count: 64))
            #expect(members.jsonLine() == (try encoded(members)))
        }
    }
}
