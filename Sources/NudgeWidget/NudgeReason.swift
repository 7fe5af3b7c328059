// NudgeReason: why a widget refresh did (or did not) schedule the restore nudge.

/// The reason attached to every widget decision, as printed by `widget-refresh` and logged in the
/// `widget-decision` event. The first four come from `NudgeDecision.decide`; the last three are
/// decided at the edge, before there is anything to decide on.
public enum NudgeReason: String, Sendable, CaseIterable, Codable {
    /// The marker file is in the App Group container: the app has been launched on this device.
    case markerPresent = "marker-present"
    /// The marker is absent but the flag is not `true`: installed or upgraded and never launched,
    /// or already nudged.
    case notArmed = "not-armed"
    /// The marker is absent and the flag is `true`: restored from a backup, not launched since.
    case restored
    /// The App Group's shared defaults could not be read (malformed property list).
    case defaultsUnreadable = "defaults-unreadable"
    /// The widget is on the home screen but its app is not installed (e.g. after a restore, before the
    /// app is reinstalled): its extension cannot run.
    case appNotInstalled = "app-not-installed"
    /// The app is installed without the nudge widget: there is no extension to run.
    case noWidget = "no-widget"
    /// The app's first App Group container does not exist, so the widget has nowhere to look.
    case groupMissing = "group-missing"

    /// Whether this reason means the refresh failed for the widget (the command exits 1).
    public var isFailure: Bool {
        self == .defaultsUnreadable || self == .groupMissing
    }

    /// Whether the widget extension ran at all (and so logs a `widget-decision` event).
    public var widgetRan: Bool {
        self != .appNotInstalled && self != .noWidget
    }
}
