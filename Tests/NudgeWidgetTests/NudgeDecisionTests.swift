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

        var testDescription: String {
            "\(policy.rawValue), marker \(marker ? "present" : "absent"), flag \(flag.rawValue)"
        }
    }

    /// The table from the issue and the article, both policies (2 x 2 x 5 = 20 rows).
    static let table: [Row] = [
        // once: the article's prose. The flag is cleared only when the notification is scheduled.
        Row(policy: .once, marker: true, flag: .true, outcome: .none, reason: .markerPresent, setsFlagFalse: false),
        Row(policy: .once, marker: true, flag: .false, outcome: .none, reason: .markerPresent, setsFlagFalse: false),
        Row(policy: .once, marker: true, flag: .absent, outcome: .none, reason: .markerPresent, setsFlagFalse: false),
        Row(policy: .once, marker: true, flag: .notBoolean, outcome: .none, reason: .markerPresent, setsFlagFalse: false),
        Row(policy: .once, marker: true, flag: .unreadable, outcome: .none, reason: .defaultsUnreadable, setsFlagFalse: false),
        Row(policy: .once, marker: false, flag: .true, outcome: .scheduled, reason: .restored, setsFlagFalse: true),
        Row(policy: .once, marker: false, flag: .false, outcome: .none, reason: .notArmed, setsFlagFalse: false),
        Row(policy: .once, marker: false, flag: .absent, outcome: .none, reason: .notArmed, setsFlagFalse: false),
        Row(policy: .once, marker: false, flag: .notBoolean, outcome: .none, reason: .notArmed, setsFlagFalse: false),
        Row(policy: .once, marker: false, flag: .unreadable, outcome: .none, reason: .defaultsUnreadable, setsFlagFalse: false),
        // as-published: the article's code. `false` is written after the `if`, on every readable refresh.
        Row(policy: .asPublished, marker: true, flag: .true, outcome: .none, reason: .markerPresent, setsFlagFalse: true),
        Row(policy: .asPublished, marker: true, flag: .false, outcome: .none, reason: .markerPresent, setsFlagFalse: true),
        Row(policy: .asPublished, marker: true, flag: .absent, outcome: .none, reason: .markerPresent, setsFlagFalse: true),
        Row(policy: .asPublished, marker: true, flag: .notBoolean, outcome: .none, reason: .markerPresent, setsFlagFalse: true),
        Row(policy: .asPublished, marker: true, flag: .unreadable, outcome: .none, reason: .defaultsUnreadable, setsFlagFalse: false),
        Row(policy: .asPublished, marker: false, flag: .true, outcome: .scheduled, reason: .restored, setsFlagFalse: true),
        Row(policy: .asPublished, marker: false, flag: .false, outcome: .none, reason: .notArmed, setsFlagFalse: true),
        Row(policy: .asPublished, marker: false, flag: .absent, outcome: .none, reason: .notArmed, setsFlagFalse: true),
        Row(policy: .asPublished, marker: false, flag: .notBoolean, outcome: .none, reason: .notArmed, setsFlagFalse: true),
        Row(policy: .asPublished, marker: false, flag: .unreadable, outcome: .none, reason: .defaultsUnreadable, setsFlagFalse: false),
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
