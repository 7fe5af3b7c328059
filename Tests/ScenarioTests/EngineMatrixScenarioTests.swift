// EngineMatrixScenarioTests: the migration through each of Apple's backup engines, with the app's marker
// flagged by each exclusion attribute. Whether the nudge fires on the new phone depends only on whether that
// engine carried the marker: the general flag keeps it out of every engine, the cloud-only flag out of iCloud
// only, the unencrypted-only flag out of unencrypted computer backups only (ios-device-layout.md §4.2).
import Foundation
import TestSupport
import Testing

@Suite("Engines: which backup carries the marker")
struct EngineMatrixScenarioTests {
    let news = App.news

    /// How the app flagged its marker: `exclude add` with these options (none: `launch`'s own general flag).
    enum MarkerFlag: String, CaseIterable, Sendable, CustomStringConvertible {
        case general, cloudOnly = "cloud-only", unencryptedOnly = "unencrypted-only"
        var description: String { rawValue }
        /// The engines whose backups leave the marker out.
        var excludedFrom: Set<String> {
            switch self {
            case .general: ["icloud", "computer", "computer-encrypted", "quick-start"]
            case .cloudOnly: ["icloud"]
            case .unencryptedOnly: ["computer"]
            }
        }
    }

    static let engines = ["icloud", "computer", "computer-encrypted", "quick-start"]
    static let matrix: [(MarkerFlag, String)] = MarkerFlag.allCases.flatMap { flag in engines.map { (flag, $0) } }

    /// The old phone after its app ran once, its marker flagged by `flag` only.
    func oldPhone(_ dir: String, flaggedWith flag: MarkerFlag) throws -> Phone {
        let old = try Phone.fresh("\(dir)/old", apps: [news])
        try old.launch(news, at: Clock.start)
        if flag != .general {
            let marker = try old.groupContainer(news.group!) + "/device-restoration-marker.txt"
            try Devicectl.succeed(["exclude", "remove", marker], at: Clock.start)
            try Devicectl.succeed(["exclude", "add", "--\(flag.rawValue)", marker], at: Clock.start)
        }
        return old
    }

    @Test("Every marker flag through every engine: the nudge fires exactly when the engine left the marker out",
        arguments: matrix)
    func theNudgeFiresExactlyWhenTheEngineLeftTheMarkerOut(_ flag: MarkerFlag, _ engine: String) throws {
        try withTemporaryDirectory { dir in
            let old = try oldPhone(dir, flaggedWith: flag)
            let new = try old.migrate(to: "\(dir)/new", engine: engine, in: dir)
            let carried = !flag.excludedFrom.contains(engine)
            let restored = try #require(try new.status(at: Clock.restore).app(news.bundleId))
            #expect(restored.markerPresent == carried, "\(flag) marker through \(engine)")
            #expect(restored.flag == .bool(true))
            let decisions = try new.refresh(at: Clock.firstRefresh)
            #expect(decisions.map(\.reason) == [carried ? "marker-present" : "restored"], "\(flag) via \(engine)")
            let later = try new.notifications(at: Clock.firstRefresh + 2 * Clock.nudgeDelay)
            #expect(later.map(\.state) == (carried ? [] : ["delivered"]), "\(flag) via \(engine)")
        }
    }

    @Test("A marker flagged cloud-only survives a computer backup: after that restore the nudge never fires")
    func aCloudOnlyMarkerSurvivesAComputerBackupSoTheNudgeNeverFires() throws {
        try withTemporaryDirectory { dir in
            let old = try oldPhone(dir, flaggedWith: .cloudOnly)
            let archive = try old.backup(to: "\(dir)/old.tar", engine: "computer")
            let list = try Devicectl.succeed(["list", archive], at: Clock.backup).stdout
            #expect(list.contains("  engine: computer\n"), "\(list)")
            #expect(list.contains("device-restoration-marker.txt"), "a computer backup carries a cloud-only marker")
            try Devicectl.succeed(["init", "\(dir)/new"], at: Clock.restore)
            let new = try Phone.restored(from: archive, onto: "\(dir)/new")
            #expect(try new.status(at: Clock.restore).app(news.bundleId)?.markerPresent == true)
            // Refresh after refresh, for days: the marker is there, so nothing is ever scheduled.
            for hours in [1.0, 2, 25, 49, 73] {
                #expect(try new.refresh(at: Clock.restore + hours * Clock.hour).map(\.reason) == ["marker-present"])
            }
            #expect(try new.notifications(at: Clock.restore + 10 * Clock.nudgeDelay).isEmpty)
            #expect(try new.events("notification-scheduled", at: Clock.restore + 10 * Clock.nudgeDelay).isEmpty)
            // The same phone through iCloud leaves the marker out, and the nudge fires.
            let cloud = try old.migrate(to: "\(dir)/cloud", engine: "icloud", in: "\(dir)")
            #expect(try cloud.refresh(at: Clock.firstRefresh).map(\.reason) == ["restored"])
        }
    }
}
