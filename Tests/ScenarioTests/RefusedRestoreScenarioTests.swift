// RefusedRestoreScenarioTests: scenario 13. A restore onto a phone that is not fresh is refused and changes
// nothing: the whole tree (device-local state included) and its parent directory are exactly as before.
import Foundation
import Glibc
import TestSupport
import Testing

@Suite("Restore onto a phone in use")
struct RefusedRestoreScenarioTests {
    /// Ways a restore target is not a fresh device.
    enum Target: String, CaseIterable, CustomStringConvertible {
        case appInstalled = "an app installed"
        case appLaunched = "an app installed and launched"
        case userData = "no apps but user data"
        case notADevice = "a non-empty directory that is not a device"
        case theOldPhone = "the phone the backup came from"

        var description: String { rawValue }
    }

    @Test("13. Restore onto a phone that is not fresh is refused and changes nothing", arguments: Target.allCases)
    func restoreOntoAPhoneInUseIsRefused(target: Target) throws {
        try withTemporaryDirectory { dir in
            let old = try Phone.fresh("\(dir)/old", apps: [.news])
            try old.launch(.news, at: Clock.start)
            let archive = try old.backup(to: "\(dir)/old.tar.zst", compression: "zstd")
            let root = try Self.make(target, in: dir, old: old)

            let before = try TreeSnapshot(root)
            let parentBefore = try TreeSnapshot(dir) { $0 == Self.name(root) }
            for source in [archive, "-"] {
                let input = source == "-" ? try Data(contentsOf: URL(fileURLWithPath: archive)) : nil
                let result = try Devicectl.run(
                    ["restore", source, root, "--no-progress"], at: Clock.restore, input: input)
                #expect(result.status == 1, "restore \(source) onto \(target): \(result.stderr)")
                #expect(result.stderr.hasPrefix("devicectl: \(root) is not a fresh device"), "\(result.stderr)")
                let after = try TreeSnapshot(root)
                let parentAfter = try TreeSnapshot(dir) { $0 == Self.name(root) }
                #expect(after.differences(from: before) == [], "restore \(source) changed \(target)")
                #expect(parentAfter.differences(from: parentBefore) == [], "restore \(source) changed \(dir)")
            }
            // The same archive restores onto a fresh phone: the refusal was about the target, not the archive.
            _ = try Phone.fresh("\(dir)/fresh")
            let fresh = try Phone.restored(from: archive, onto: "\(dir)/fresh")
            #expect(try fresh.status().app(App.news.bundleId)?.flag == .bool(true))
        }
    }

    static func name(_ root: String) -> String { URL(fileURLWithPath: root).lastPathComponent }

    /// Makes the restore target for `target` in `dir`.
    static func make(_ target: Target, in dir: String, old: Phone) throws -> String {
        let root = "\(dir)/target"
        switch target {
        case .appInstalled:
            _ = try Phone.fresh(root, apps: [.sports])
        case .appLaunched:
            let phone = try Phone.fresh(root, apps: [.sports])
            try phone.launch(.sports, at: Clock.start + Clock.hour)
        case .userData:
            _ = try Phone.fresh(root)
            let photo = "\(root)/Media/DCIM/100APPLE/IMG_0001.JPG"
            try FileManager.default.createDirectory(
                atPath: URL(fileURLWithPath: photo).deletingLastPathComponent().path, withIntermediateDirectories: true)
            try Data(repeating: 0xff, count: 1_024).write(to: URL(fileURLWithPath: photo))
        case .notADevice:
            try FileManager.default.createDirectory(atPath: "\(root)/photos", withIntermediateDirectories: true)
            try Data("holiday".utf8).write(to: URL(fileURLWithPath: "\(root)/photos/beach.jpg"))
        case .theOldPhone:
            return old.root
        }
        return root
    }
}
