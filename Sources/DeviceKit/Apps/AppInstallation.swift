// AppInstallation: what `devicectl install` (or a restore's reinstall) asks for.

/// A request to install an app.
public struct AppInstallation: Sendable, Equatable {
    public var bundleId: String
    /// The display name (default: the last component of the bundle id, capitalised).
    public var name: String?
    /// App Group identifiers, in order; the first holds the marker and flag.
    public var groups: [String]
    /// The nudge widget's settings; nil for an app without the widget.
    public var widget: NudgeSettings?
    /// `CFBundleShortVersionString` (default 1.0).
    public var version: String
    /// `CFBundleVersion` (default 1).
    public var build: String

    public init(
        bundleId: String, name: String? = nil, groups: [String] = [], widget: NudgeSettings? = NudgeSettings(),
        version: String = "1.0", build: String = "1"
    ) {
        self.bundleId = bundleId
        self.name = name
        self.groups = groups
        self.widget = widget
        self.version = version
        self.build = build
    }

    /// The name to show: `name`, or `News` for `com.example.news`.
    public var displayName: String {
        if let name, !name.isEmpty { return name }
        let last = bundleId.split(separator: ".").last.map(String.init) ?? bundleId
        return last.prefix(1).uppercased() + last.dropFirst()
    }
}
