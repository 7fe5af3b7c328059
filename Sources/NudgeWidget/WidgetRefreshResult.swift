// WidgetRefreshResult: what one widget's timeline refresh decided and did.
import DeviceKit

/// The outcome of refreshing one widget on the home screen.
public struct WidgetRefreshResult: Sendable, Equatable {
    /// The widget's app (its bundle id, as placed on the home screen).
    public let app: String
    public let decision: NudgeDecision
    /// What the widget saw; nil when it never got to look (app not installed, no widget, no group).
    public let snapshot: WidgetSnapshot?
    /// The id of the notification scheduled, when one was.
    public let notificationId: String?
    /// A sentence for a warning (what could not be read and why); nil when the refresh went normally.
    public let problem: String?

    public init(
        app: String, decision: NudgeDecision, snapshot: WidgetSnapshot? = nil, notificationId: String? = nil,
        problem: String? = nil
    ) {
        self.app = app
        self.decision = decision
        self.snapshot = snapshot
        self.notificationId = notificationId
        self.problem = problem
    }

    /// Whether this widget's refresh failed (the command exits 1, the other widgets still run).
    public var failed: Bool { decision.reason.isFailure }
}
