// NudgeBackupRestoreTests: the whole migration through the binary with the real backup and restore:
// the marker (excluded from backup) stays behind, the flag travels, and the policies differ as the
// article's discrepancy predicts.
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite
struct NudgeBackupRestoreTests {
    typealias F = NudgeFixture

    /// Runs a migration command at `now` (through DEVICECTL_NOW: backup and restore take no --now).
    func migrate(_ arguments: [String], at now: Date) throws {
        let result = try DevicectlBinary.run(arguments, environment: ["DEVICECTL_NOW": Timestamp.format(now)])
        try #require(result.status == 0, "devicectl \(arguments.joined(separator: " ")): \(result.stderr)")
    }

    @Test(arguments: [
        (NudgeSettings.Policy.once, "scheduled", "restored"), (NudgeSettings.Policy.asPublished, "none", "not-armed"),
    ])
    func backupAndRestoreThenRefresh(_ policy: NudgeSettings.Policy, _ decision: String, _ reason: String) throws {
        try withTemporaryDirectory { dir in
            let old = "\(dir)/old", new = "\(dir)/new", archive = "\(dir)/old.tar"
            try F.phone(old, policy: policy)
            let oldToken = try F.launch(old, at: F.at(hours: 0))
            _ = try F.refresh(old, at: F.at(hours: 1))  // a refresh between the last launch and the backup
            try migrate(["backup", old, "-o", archive, "--no-progress"], at: F.at(hours: 14))
            try migrate(["init", new], at: F.at(hours: 20))
            try migrate(["restore", archive, new, "--no-progress"], at: F.at(hours: 20))

            let widgets = try F.refresh(new, at: F.at(hours: 21))
            #expect(widgets.first?["app"] as? String == F.news)
            #expect(widgets.first?["decision"] as? String == decision)
            #expect(widgets.first?["reason"] as? String == reason)
            let notifications = try F.notifications(new, at: F.at(hours: 45))
            guard policy == .once else {
                #expect(notifications.isEmpty)
                return
            }
            #expect(notifications.count == 1)
            #expect(notifications.first?["state"] as? String == "delivered")
            #expect(notifications.first?["fireDate"] as? String == Timestamp.format(F.at(hours: 45)))
            let id = try #require(notifications.first?["id"] as? String)
            let tap = try F.run(["tap", new, "--notification", id], at: F.at(hours: 46))
            #expect(tap.status == 0, "\(tap.stderr)")
            let newToken = tap.stdout.split(whereSeparator: \.isWhitespace).last.map(String.init)
            #expect(newToken != nil && newToken != oldToken)
        }
    }
}
