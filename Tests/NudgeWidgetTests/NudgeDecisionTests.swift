// NudgeDecisionTests: the whole decision table, for both policies, written out row by row.
import DeviceKit
import Foundation
import NudgeWidget
import Testing

@Suite struct NudgeDecisionTests {
    /// One row of the table: what the widget sees, under which policy, and what must happen.
    struct Row: Sendable, CustomTestStringConvertible {
        let policy: NudgeSettings.Policy
        let marker: Bool
        let flag: WidgetSnapshot.Flag
        let outcome: NudgeDecision.Outcome
        let reason: NudgeReason
        let setsFlagFalse: Bool

        init(
            _ policy: NudgeSettings.Policy, marker: Bool, _ flag: WidgetSnapshot.Flag,
            _ outcome: NudgeDecision.Outcome, _ reason: NudgeReason, clears setsFlagFalse: Bool
        ) {
            (self.policy, self.marker, self.flag) = (policy, marker, flag)
            (self.outcome, self.reason, self.setsFlagFalse) = (outcome, reason, setsFlagFalse)
        }

        var testDescription: String {
            "\(policy.rawValue), marker \(marker ? "present" : "absent"), flag \(flag.rawValue)"
        }
    }

    /// The table from the issue and the article, both policies (2 x 2 x 5 = 20 rows).
    static let table: [Row] = [
        // once: the article's prose. The flag is cleared only when the notification is scheduled.
        Row(.once, marker: true, .true, .none, .markerPresent, clears: false),
        Row(.once, marker: true, .false, .none, .markerPresent, clears: false),
        Row(.once, marker: true, .absent, .none, .markerPresent, clears: false),
        Row(.once, marker: true, .notBoolean, .none, .markerPresent, clears: false),
        Row(.once, marker: true, .unreadable, .none, .defaultsUnreadable, clears: false),
        Row(.once, marker: false, .true, .scheduled, .restored, clears: true),
        Row(.once, marker: false, .false, .none, .notArmed, clears: false),
        Row(.once, marker: false, .absent, .none, .notArmed, clears: false),
        Row(.once, marker: false, .notBoolean, .none, .notArmed, clears: false),
        Row(.once, marker: false, .unreadable, .none, .defaultsUnreadable, clears: false),
        // as-published: the article's code. `false` is written after the `if`, on every readable refresh.
        Row(.asPublished, marker: true, .true, .none, .markerPresent, clears: true),
        Row(.asPublished, marker: true, .false, .none, .markerPresent, clears: true),
        Row(.asPublished, marker: true, .absent, .none, .markerPresent, clears: true),
        Row(.asPublished, marker: true, .notBoolean, .none, .markerPresent, clears: true),
        Row(.asPublished, marker: true, .unreadable, .none, .defaultsUnreadable, clears: false),
        Row(.asPublished, marker: false, .true, .scheduled, .restored, clears: true),
        Row(.asPublished, marker: false, .false, .none, .notArmed, clears: true),
        Row(.asPublished, marker: false, .absent, .none, .notArmed, clears: true),
        Row(.asPublished, marker: false, .notBoolean, .none, .notArmed, clears: true),
        Row(.asPublished, marker: false, .unreadable, .none, .defaultsUnreadable, clears: false),
    ]

    static let now = Date(timeIntervalSince1970: 1_796_115_600)  // 2026-12-01T09:00:00Z

    @Test func tableCoversEveryCombinationOnce() {
        let seen = Set(Self.table.map(\.testDescription))
        #expect(seen.count == Self.table.count)
        #expect(seen.count == NudgeSettings.Policy.allCases.count * 2 * WidgetSnapshot.Flag.allCases.count)
    }

    @Test(arguments: table)
    func decides(_ row: Row) {
        let settings = NudgeSettings(policy: row.policy, title: "Open me", body: "Please")
        let decision = NudgeDecision.decide(
            snapshot: WidgetSnapshot(markerPresent: row.marker, flag: row.flag), settings: settings, now: Self.now)
        #expect(decision.outcome == row.outcome)
        #expect(decision.reason == row.reason)
        #expect(decision.setsFlagFalse == row.setsFlagFalse)
        if row.outcome == .scheduled {
            #expect(decision.notification == .init(title: "Open me", body: "Please", fireDate: Self.now + 86_400))
            #expect(decision.fireDate == Self.now + 86_400)
        } else {
            #expect(decision.notification == nil)
            #expect(decision.fireDate == nil)
        }
    }

    @Test(arguments: [0, 45, 5_400, 86_400, 604_800] as [Double])
    func fireDateIsNowPlusTheAppsDelay(_ delay: Double) {
        for policy in NudgeSettings.Policy.allCases {
            let settings = NudgeSettings(policy: policy, delaySeconds: delay)
            let decision = NudgeDecision.decide(
                snapshot: WidgetSnapshot(markerPresent: false, flag: .true), settings: settings, now: Self.now)
            #expect(decision.fireDate == Self.now.addingTimeInterval(delay))
            #expect(decision.notification?.title == settings.title)
            #expect(decision.notification?.body == settings.body)
        }
    }

    @Test func theDecisionDoesNotDependOnMarkerNameOrFlagKey() {
        // The snapshot already reflects them; the decision depends on policy, delay, title and body only.
        let snapshot = WidgetSnapshot(markerPresent: false, flag: .true)
        let plain = NudgeDecision.decide(snapshot: snapshot, settings: NudgeSettings(), now: Self.now)
        let renamed = NudgeDecision.decide(
            snapshot: snapshot, settings: NudgeSettings(markerFileName: "other", flagKey: "otherFlag"), now: Self.now)
        #expect(plain == renamed)
    }

    @Test func onlyEdgeReasonsCountAsFailures() {
        #expect(NudgeReason.allCases.filter(\.isFailure) == [.defaultsUnreadable, .groupMissing])
        #expect(NudgeReason.allCases.filter { !$0.widgetRan } == [.appNotInstalled, .noWidget])
    }
}
