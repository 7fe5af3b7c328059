// HomeScreen: the home-screen layout: which widgets are placed, in order.

/// The home-screen layout stored at `Library/SpringBoard/IconState.plist` (backed up, like iOS's).
public struct HomeScreen: Sendable, Equatable {
    /// Bundle ids of the apps whose widget is placed, in order.
    public var widgets: [String]

    public init(widgets: [String] = []) {
        self.widgets = widgets
    }

    var plist: [String: Any] {
        ["widgets": widgets.map { ["app": $0, "kind": "NudgeWidget"] }]
    }

    init(plist: [String: Any], path: String) throws {
        guard let entries = plist["widgets"] as? [[String: Any]] else {
            throw DeviceError.malformedPlist(path: path, reason: "no 'widgets' array")
        }
        widgets = try entries.enumerated().map { index, entry in
            guard let app = entry["app"] as? String else {
                throw DeviceError.malformedPlist(path: path, reason: "a widget without an 'app' string")
            }
            do {
                try DeviceValue.bundleIdentifier(app, field: "widgets[\(index)].app")
            } catch {
                throw DeviceError.malformedPlist(path: path, reason: "\(error)")
            }
            return app
        }
    }
}
