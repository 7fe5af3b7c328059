// NudgeDecision: the widget's restore-nudge decision, a pure function of the snapshot, settings and time.
import DeviceKit
import Foundation

/// What one timeline refresh decides and the state changes to apply. No I/O: `WidgetRefresher` reads
/// the snapshot and applies the changes.
public struct NudgeDecision: Sendable, Equatable {
    /// Whether a notification is scheduled.
    public enum Outcome: String, Sendable, CaseIterable {
        case scheduled, none
    }

    /// The local notification to schedule.
    public struct Notification: Sendable, Equatable {
        public let title: String
        public let body: String
        public let fireDate: Date

        public init(title: String, body: String, fireDate: Date) {
            self.title = title
            self.body = body
            self.fireDate = fireDate
        }
    }

    public let outcome: Outcome
    public let reason: NudgeReason
    /// The notification to schedule; non-nil exactly when `outcome` is `.scheduled`.
    public let notification: Notification?
    /// Whether to write `false` to the flag.
    public let setsFlagFalse: Bool

    /// The notification's fire date, or nil when nothing is scheduled.
    public var fireDate: Date? { notification?.fireDate }

    init(outcome: Outcome, reason: NudgeReason, notification: Notification?, setsFlagFalse: Bool) {
        self.outcome = outcome
        self.reason = reason
        self.notification = notification
        self.setsFlagFalse = setsFlagFalse
    }

    /// No notification and no state change, for `reason`.
    static func none(_ reason: NudgeReason) -> NudgeDecision {
        NudgeDecision(outcome: .none, reason: reason, notification: nil, setsFlagFalse: false)
    }

    /// Decides one refresh (the seed's `getTimeline`):
    /// - defaults unreadable: nothing (no write either: rewriting the file would destroy what is in it);
    /// - marker present: no notification (`marker-present`);
    /// - marker absent, flag not `true`: no notification (`not-armed`);
    /// - marker absent, flag `true`: schedule one notification firing `settings.delaySeconds` after
    ///   `now` and clear the flag (`restored`).
    /// Policy `once` clears the flag only when it schedules (the article's prose); `as-published` clears
    /// it on every refresh it can read, whatever it decided (the article's code: `false` after the `if`).
    public static func decide(snapshot: WidgetSnapshot, settings: NudgeSettings, now: Date) -> NudgeDecision {
        if snapshot.flag == .unreadable { return .none(.defaultsUnreadable) }
        let clearsEveryRefresh = settings.policy == .asPublished
        if snapshot.markerPresent {
            return NudgeDecision(
                outcome: .none, reason: .markerPresent, notification: nil, setsFlagFalse: clearsEveryRefresh)
        }
        guard snapshot.flag == .true else {
            return NudgeDecision(
                outcome: .none, reason: .notArmed, notification: nil, setsFlagFalse: clearsEveryRefresh)
        }
        let notification = Notification(
            title: settings.title, body: settings.body, fireDate: now.addingTimeInterval(settings.delaySeconds))
        return NudgeDecision(outcome: .scheduled, reason: .restored, notification: notification, setsFlagFalse: true)
    }
}
