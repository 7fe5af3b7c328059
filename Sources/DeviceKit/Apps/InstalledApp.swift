// InstalledApp: an app as its bundle container's Info.plist describes it.
import Foundation

/// An installed app, read from `Containers/Bundle/Application/<UUID>/<Name>.app/Info.plist`.
public struct InstalledApp: Sendable, Equatable {
    public let bundleId: String
    public let name: String
    public let groups: [String]
    public let widget: NudgeSettings?
    public let bundleContainer: Container
    public let dataContainer: Container

    /// The widget extension's identifier (its PluginKitPlugin container's identifier).
    public var widgetExtensionId: String { "\(bundleId).NudgeWidget" }

    /// The Info.plist keys devicectl writes.
    enum Key {
        static let groups = "DevicectlAppGroups"
        static let widget = "DevicectlNudgeWidget"
    }

    static func infoPlist(for request: AppInstallation) throws -> [String: Any] {
        var info: [String: Any] = [
            "CFBundleIdentifier": request.bundleId,
            "CFBundleName": request.displayName,
            "CFBundleExecutable": request.displayName,
            "CFBundleShortVersionString": "1.0",
            "CFBundleVersion": "1",
            Key.groups: request.groups,
        ]
        if let widget = request.widget {
            let data = try PropertyListEncoder().encode(widget)
            info[Key.widget] = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        }
        return info
    }

    /// Reads an Info.plist. A device root is hostile: every value is checked with `DeviceValue` (the
    /// bundle id, name, groups and widget settings), and a bad one is a malformed plist naming `path`.
    init(info: [String: Any], path: String, bundle: Container, data: Container) throws {
        guard let bundleId = info["CFBundleIdentifier"] as? String else {
            throw DeviceError.malformedPlist(path: path, reason: "no CFBundleIdentifier string")
        }
        let name = info["CFBundleName"] ?? bundleId
        guard let name = name as? String else {
            throw DeviceError.malformedPlist(path: path, reason: "CFBundleName is not a string")
        }
        let groups = info[Key.groups] ?? [String]()
        guard let groups = groups as? [String] else {
            throw DeviceError.malformedPlist(path: path, reason: "\(Key.groups) is not an array of strings")
        }
        do {
            try DeviceValue.bundleIdentifier(bundleId, field: "CFBundleIdentifier")
            try DeviceValue.appName(name, field: "CFBundleName")
            try AppInstallation.validate(groups: groups, field: Key.groups)
        } catch {
            throw DeviceError.malformedPlist(path: path, reason: "\(error)")
        }
        self.bundleId = bundleId
        self.name = name
        self.groups = groups
        if let raw = info[Key.widget] {
            let widget: NudgeSettings
            do {
                let data = try PropertyListSerialization.data(fromPropertyList: raw, format: .binary, options: 0)
                widget = try PropertyListDecoder().decode(NudgeSettings.self, from: data)
            } catch {
                throw DeviceError.malformedPlist(path: path, reason: "\(Key.widget) is not valid widget settings")
            }
            do {
                try widget.validate()
            } catch {
                throw DeviceError.malformedPlist(path: path, reason: "\(error.within(Key.widget + "."))")
            }
            self.widget = widget
        } else {
            self.widget = nil
        }
        self.bundleContainer = bundle
        self.dataContainer = data
    }
}
