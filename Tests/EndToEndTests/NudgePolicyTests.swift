// NudgePolicyTests: the article's discrepancy, through the binary. Under `as-published` (the code as
// published) a widget refresh between the last launch and the backup clears the flag in the backed-up
// data, so the restored phone never nudges; under `once` (the prose) it nudges.
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct NudgePolicyTests {
    typealias F = NudgeFixture

    struct Case: Sendable, CustomTestStringConvertible {
        let policy: NudgeSettings.Policy
        /// Whether the old phone's widget refreshes between the last launch and the backup.
        let refreshBeforeBackup: Bool
        let decision: String
        let reason: String
        var testDescription: String { "\(policy.rawValue), refresh before backup: \(refreshBeforeBackup)" }
    }

    static let cases = [
        Case(policy: .once, refreshBeforeBackup: true, decision: "scheduled", reason: "restored"),
        Case(policy: .asPublished, refreshBeforeBackup: true, decision: "none", reason: "not-armed"),
        // Without a refresh in between, the two policies agree: the difference is exactly that refresh.
        Case(policy: .once, refreshBeforeBackup: false, decision: "scheduled", reason: "restored"),
        Case(policy: .asPublished, refreshBeforeBackup: false, decision: "scheduled", reason: "restored"),
    ]

    @Test(arguments: cases)
    func restoredPhoneNudgesAsThePolicyPredicts(_ test: Case) throws {
        try withTemporaryDirectory { dir in
            let old = "\(dir)/old"
            let new = "\(dir)/new"
            try F.phone(old, policy: test.policy)
            try F.launch(old, at: F.at(hours: 0))  // the last launch, during the day
            if test.refreshBeforeBackup {
                let widgets = try F.refresh(old, at: F.at(hours: 1))  // the widget refreshes every 15-60 min
                #expect(widgets.first?["reason"] as? String == "marker-present")
                #expect(widgets.first?["decision"] as? String == "none")
                let flag = try F.flag(old)
                #expect(flag as? Bool == (test.policy == .once), "flag after a refresh with the marker present")
                #expect(try F.notifications(old, at: F.at(hours: 1)).isEmpty)
            }
            try F.restore(from: old, to: new)  // the nightly backup, restored onto the new phone

            let widgets = try F.refresh(new, at: F.at(hours: 20))
            #expect(widgets.first?["decision"] as? String == test.decision)
            #expect(widgets.first?["reason"] as? String == test.reason)
            let expected = test.decision == "scheduled" ? 1 : 0
            #expect(try F.notifications(new, at: F.at(hours: 20)).count == expected)
            // Whatever happened, the flag is now false and later refreshes never nudge.
            let later = try F.refresh(new, at: F.at(hours: 21))
            #expect(later.first?["reason"] as? String == "not-armed")
            #expect(try F.notifications(new, at: F.at(hours: 21)).count == expected)
        }
    }

    @Test func policyIsPerApp() throws {
        try withTemporaryDirectory { dir in
            let old = "\(dir)/old"
            let new = "\(dir)/new"
            try F.phone(old, apps: [F.news])
            try F.install(old, F.mail, policy: .asPublished)
            try F.placeWidget(old, F.mail)
            for app in [F.news, F.mail] { try F.launch(old, app, at: F.at(hours: 0)) }
            _ = try F.refresh(old, at: F.at(hours: 1))
            try F.restore(from: old, to: new)
            let widgets = try F.refresh(new, at: F.at(hours: 20))
            #expect(widgets.compactMap { $0["app"] as? String } == [F.news, F.mail])
            #expect(widgets.compactMap { $0["decision"] as? String } == ["scheduled", "none"])
            #expect(try F.notifications(new, at: F.at(hours: 20)).compactMap { $0["app"] as? String } == [F.news])
        }
    }
}
