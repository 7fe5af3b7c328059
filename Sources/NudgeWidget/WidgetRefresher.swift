// WidgetRefresher: the edge around NudgeDecision: runs every placed widget's timeline refresh on a device.
import DeviceKit
import Foundation

/// Runs the nudge widget's timeline refresh (`getTimeline`) for the widgets on a device's home screen:
/// reads each widget's snapshot, asks `NudgeDecision.decide`, applies the decision (schedules the
/// notification, writes the flag) and logs a `widget-decision` event.
public struct WidgetRefresher: Sendable {
    public let device: Device

    public init(device: Device) {
        self.device = device
    }

    /// Refreshes every widget placed on the home screen at `now`: on the pages in page order (a Smart Stack's
    /// widgets in stack order), then the Today view; each placed widget is one refresh. A widget whose defaults
    /// cannot be read, or whose App Group container is missing, gets a failed result and the others
    /// still run. A widget whose app is not installed (or has no widget) is skipped: its extension cannot
    /// run, so nothing is decided, written or logged. Deliveries due by `now` are logged first.
    /// Throws when the device itself cannot be read (home screen, Info.plists) or a write fails.
    public func refreshAll(at now: Date) throws -> [WidgetRefreshResult] {
        // Each kind of container listed once for all the widgets.
        var index = ContainerIndex(device: device)
        return try refreshAll(at: now, apps: device.apps(using: &index), index: &index)
    }

    /// `refreshAll(at:)` with the device's `apps` and containers as a validation just read them
    /// (`Device.validatedState(using:)`), so a refresh after it reads no container metadata again.
    public func refreshAll(
        at now: Date, apps: [InstalledApp], index: inout ContainerIndex
    ) throws -> [WidgetRefreshResult] {
        try NotificationStore(device: device).settle(at: now)
        let widgets = try device.homeScreen().placedWidgets
        guard !widgets.isEmpty else { return [] }
        var results: [WidgetRefreshResult] = []
        for widget in widgets {
            let owner = widget.app
                ?? apps.first { $0.widgetExtension?.bundleId == widget.extensionId }?.bundleId ?? widget.extensionId
            if let app = apps.first(where: { $0.bundleId == owner }), app.widget != nil,
                widget.extensionId != app.widgetExtensionId || widget.kind != InstalledApp.widgetKind
            {
                // Another extension or kind of the app: its timeline is not the nudge's.
                results.append(
                    WidgetRefreshResult(
                        app: owner, decision: .none(.noWidget),
                        problem: "the widget '\(widget.kind)' of '\(owner)' (\(widget.extensionId)) is not its nudge "
                            + "widget; skipped"))
                continue
            }
            results.append(try refresh(owner, apps: apps, index: &index, at: now))
        }
        return results
    }

    // MARK: - One widget

    private func refresh(
        _ bundleId: String, apps: [InstalledApp], index: inout ContainerIndex, at now: Date
    ) throws -> WidgetRefreshResult {
        guard let app = apps.first(where: { $0.bundleId == bundleId }) else {
            return WidgetRefreshResult(
                app: bundleId, decision: .none(.appNotInstalled),
                problem: "the widget of '\(bundleId)' is on the home screen but the app is not installed; skipped")
        }
        guard let settings = app.widget else {
            return WidgetRefreshResult(
                app: bundleId, decision: .none(.noWidget),
                problem: "the widget of '\(bundleId)' is on the home screen but the app has no nudge widget; skipped")
        }
        guard let groupId = app.groups.first, let group = try index.container(.group, identifier: groupId) else {
            let missing =
                app.groups.first.map { "its App Group container '\($0)' does not exist" }
                ?? "it belongs to no App Group"
            let result = WidgetRefreshResult(
                app: bundleId, decision: .none(.groupMissing),
                problem: "widget of '\(bundleId)': \(missing); no decision made")
            try log(result, settings: settings, at: now)
            return result
        }
        let suite = try index.defaults(groupId)
        let (snapshot, unreadable, markerProblem) = try WidgetSnapshot.read(
            group: group, suite: suite, settings: settings, on: device)
        let decision = NudgeDecision.decide(snapshot: snapshot, settings: settings, now: now)
        var notificationId: String?
        if let notification = decision.notification {
            notificationId = try NotificationStore(device: device).schedule(
                app: bundleId, title: notification.title, body: notification.body, at: now,
                fireDate: notification.fireDate
            ).id
        }
        if decision.setsFlagFalse {
            try suite.set(settings.flagKey, to: false)
        }
        let result = WidgetRefreshResult(
            app: bundleId, decision: decision, snapshot: snapshot, notificationId: notificationId,
            problem: unreadable.map {
                "widget of '\(bundleId)': cannot read its shared defaults: \($0); no decision made"
            } ?? markerProblem.map { "widget of '\(bundleId)': \($0)" })
        try log(result, settings: settings, at: now)
        return result
    }

    /// Appends the `widget-decision` event: decision, reason, policy, what the widget saw, what it scheduled.
    private func log(_ result: WidgetRefreshResult, settings: NudgeSettings, at now: Date) throws {
        var details = [
            "decision": result.decision.outcome.rawValue,
            "reason": result.decision.reason.rawValue,
            "policy": settings.policy.rawValue,
            "flagCleared": String(result.decision.setsFlagFalse),
        ]
        if let snapshot = result.snapshot {
            details["marker"] = snapshot.markerPresent ? "present" : "absent"
            details["flag"] = snapshot.flag.rawValue
        }
        if let fireDate = result.decision.fireDate { details["fireDate"] = Timestamp.format(fireDate) }
        if let id = result.notificationId { details["notification"] = id }
        try EventLog(device: device).append(
            DeviceEvent(time: now, type: "widget-decision", app: result.app, details: details))
    }
}
