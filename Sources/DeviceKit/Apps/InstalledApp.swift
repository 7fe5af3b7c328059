// InstalledApp: an app as its bundle describes it: Info.plist, entitlements, nudge configuration, extensions.
import Foundation

/// An installed app, read from its bundle `Containers/Bundle/Application/<UUID>/<Name>.app/`:
/// `Info.plist` (`CFBundleIdentifier`, `CFBundleDisplayName`/`CFBundleName`, versions, `CFBundlePackageType`
/// `APPL`), the App Groups from `archived-expanded-entitlements.xcent` (`com.apple.security.application-groups`,
/// as a device build carries its entitlements) or, without it, from the `CFBundleExecutable` Mach-O file (its
/// `__TEXT,__entitlements` section or code signature, as a Simulator or signed build does), the nudge
/// behaviour from `NudgeConfiguration.plist`, and the widget extension from `PlugIns/<Ext>.appex/Info.plist`.
/// Bundles written by earlier devicectl versions (groups and settings in the private Info.plist keys
/// `DevicectlAppGroups`, `DevicectlNudgeWidget`) are read the same and rewritten in this layout by the next
/// install.
public struct InstalledApp: Sendable, Equatable {
    public let bundleId: String
    public let name: String
    public let version: String
    public let build: String
    public let groups: [String]
    /// The nudge widget's settings; nil for an app without it.
    public let widget: NudgeSettings?
    /// The WidgetKit extension in the bundle, if any.
    public let widgetExtension: WidgetExtension?
    public let bundleContainer: Container
    public let dataContainer: Container
    /// The `<Name>.app` directory, relative to ROOT.
    public let appPath: String
    /// True when the bundle is in devicectl's old layout (private Info.plist keys).
    public let isLegacy: Bool

    /// The widget extension's identifier (its PluginKitPlugin container's identifier).
    public var widgetExtensionId: String {
        widgetExtension?.bundleId ?? "\(bundleId)\(DeviceValue.widgetExtensionSuffix)"
    }

    /// The nudge widget's kind (`widgetIdentifier` on the home screen).
    public static let widgetKind = "NudgeWidget"

    /// File names inside `<Name>.app`.
    enum File {
        static let info = "Info.plist"
        static let entitlements = "archived-expanded-entitlements.xcent"
        static let nudge = "NudgeConfiguration.plist"
        static let plugIns = "PlugIns"
    }

    /// The keys of devicectl's old layout.
    enum LegacyKey {
        static let groups = "DevicectlAppGroups"
        static let widget = "DevicectlNudgeWidget"
    }

    static let groupsEntitlement = "com.apple.security.application-groups"
    /// The Info.plist key naming the executable, which carries the entitlements when there is no `.xcent`.
    static let executableKey = "CFBundleExecutable"

    /// The files of `request`'s bundle, relative to its `.app` directory, as plists.
    static func bundleFiles(for request: AppInstallation) throws -> [(String, Any)] {
        let info: [String: Any] = [
            "CFBundleIdentifier": request.bundleId,
            "CFBundleName": request.displayName,
            "CFBundleDisplayName": request.displayName,
            "CFBundleExecutable": request.displayName,
            "CFBundlePackageType": "APPL",
            "CFBundleShortVersionString": request.version,
            "CFBundleVersion": request.build,
        ]
        let entitlements: [String: Any] = [
            "application-identifier": "FAKETEAMID.\(request.bundleId)",
            groupsEntitlement: request.groups,
        ]
        var files: [(String, Any)] = [(File.info, info), (File.entitlements, entitlements)]
        if let widget = request.widget {
            let data = try PropertyListEncoder().encode(widget)
            let settings = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            files.append((File.nudge, settings))
            let appex = WidgetExtension.nudge(app: request.bundleId)
            let appexInfo = "\(File.plugIns)/\(WidgetExtension.nudgeDirectory)/\(File.info)"
            files.append((appexInfo, appex.infoPlist(app: request)))
        }
        return files
    }

    /// The parts of a bundle as read from its files (each a parsed plist or nil when absent).
    struct BundleFiles {
        var info: [String: Any]
        var infoPath: String
        var entitlements: [String: Any]?
        var entitlementsPath: String
        var nudge: [String: Any]?
        var nudgePath: String
        var extensions: [(info: [String: Any], path: String)]
    }

    /// Reads a bundle. A device root is hostile: every value is checked with `DeviceValue` (the bundle id,
    /// name, versions, groups, widget settings), and a bad one is a malformed plist naming its file.
    init(files: BundleFiles, appPath: String, bundle: Container, data: Container) throws {
        let info = files.info
        let path = files.infoPath
        guard let bundleId = info["CFBundleIdentifier"] as? String else {
            throw DeviceError.malformedPlist(path: path, reason: "no CFBundleIdentifier string")
        }
        let name = info["CFBundleDisplayName"] ?? info["CFBundleName"] ?? bundleId
        guard let name = name as? String else {
            throw DeviceError.malformedPlist(path: path, reason: "CFBundleDisplayName or CFBundleName is not a string")
        }
        guard let version = (info["CFBundleShortVersionString"] ?? "1.0") as? String,
            let build = (info["CFBundleVersion"] ?? "1") as? String
        else {
            throw DeviceError.malformedPlist(
                path: path, reason: "CFBundleShortVersionString or CFBundleVersion is not a string")
        }
        let legacy = info[LegacyKey.groups] != nil || info[LegacyKey.widget] != nil
        let (groups, groupsPath, groupsField): (Any, String, String) =
            if let entitlements = files.entitlements {
                (entitlements[InstalledApp.groupsEntitlement] ?? [String](), files.entitlementsPath,
                    InstalledApp.groupsEntitlement)
            } else {
                (info[LegacyKey.groups] ?? [String](), path, LegacyKey.groups)
            }
        guard let groups = groups as? [String] else {
            throw DeviceError.malformedPlist(path: groupsPath, reason: "\(groupsField) is not an array of strings")
        }
        do {
            try DeviceValue.bundleIdentifier(bundleId, field: "CFBundleIdentifier")
            try DeviceValue.appName(name, field: "CFBundleDisplayName")
            try DeviceValue.flagKey(version, field: "CFBundleShortVersionString")
            try DeviceValue.flagKey(build, field: "CFBundleVersion")
        } catch {
            throw DeviceError.malformedPlist(path: path, reason: "\(error)")
        }
        do {
            try AppInstallation.validate(groups: groups, field: groupsField)
        } catch {
            throw DeviceError.malformedPlist(path: groupsPath, reason: "\(error)")
        }
        var extensions: [WidgetExtension] = []
        for appex in files.extensions {
            if let found = try WidgetExtension(info: appex.info, path: appex.path) { extensions.append(found) }
        }
        let settings: (raw: Any, path: String, field: String)? =
            files.nudge.map { ($0, files.nudgePath, "") }
            ?? info[LegacyKey.widget].map { ($0, path, LegacyKey.widget + ".") }
        if let settings {
            widget = try InstalledApp.settings(settings.raw, path: settings.path, field: settings.field)
            if extensions.isEmpty && legacy { extensions = [WidgetExtension.nudge(app: bundleId)] }
        } else {
            widget = nil
        }
        self.bundleId = bundleId
        self.name = name
        self.version = version
        self.build = build
        self.groups = groups
        self.widgetExtension = extensions.first
        self.bundleContainer = bundle
        self.dataContainer = data
        self.appPath = appPath
        self.isLegacy = legacy
    }

    /// The nudge settings in `raw` (the file at `path`; `field` prefixes the names in errors).
    private static func settings(_ raw: Any, path: String, field: String) throws -> NudgeSettings {
        guard let widget = NudgeSettings(propertyList: raw) else {
            let name = field.isEmpty ? "it" : field
            throw DeviceError.malformedPlist(path: path, reason: "\(name) is not valid widget settings")
        }
        do {
            try widget.validate()
        } catch {
            throw DeviceError.malformedPlist(path: path, reason: "\(error.within(field))")
        }
        return widget
    }

    /// This app as an install request (a reinstall that changes nothing keeps all of it).
    public var installation: AppInstallation {
        AppInstallation(bundleId: bundleId, name: name, groups: groups, widget: widget, version: version, build: build)
    }
}
