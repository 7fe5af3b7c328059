// WidgetExtension: an app's WidgetKit extension, <Name>.app/PlugIns/<Ext>.appex.

/// A widget extension in an app's bundle: its bundle id and the widget kinds it offers, each in its sizes.
public struct WidgetExtension: Sendable, Equatable {
    /// One widget kind (Swift `Widget.kind`, `widgetIdentifier` on the home screen) and its sizes.
    public struct Kind: Sendable, Equatable {
        public let kind: String
        /// `small`, `medium`, `large`... as IconState's `gridSize` spells them.
        public let sizes: [String]
    }

    public let bundleId: String
    /// The kinds the extension declares; empty when its Info.plist does not say (a real build declares its
    /// kinds in code): any kind and size is then accepted.
    public let kinds: [Kind]

    /// The `.appex` directory name devicectl gives the nudge widget's extension.
    public static let nudgeDirectory = "NudgeWidget.appex"
    /// `NSExtensionPointIdentifier` of a WidgetKit extension.
    public static let pointIdentifier = "com.apple.widgetkit-extension"
    /// The Info.plist key listing the kinds and sizes (devicectl's stand-in for what the binary declares).
    public static let kindsKey = "DevicectlWidgetKinds"

    /// The first kind it declares (the widget `widget add` places by default).
    public var defaultKind: String { kinds.first?.kind ?? InstalledApp.widgetKind }

    /// Whether it offers `kind` (in `size`, when given); any, when it declares none.
    public func offers(_ kind: String, size: String? = nil) -> Bool {
        guard !kinds.isEmpty else { return true }
        guard let found = kinds.first(where: { $0.kind == kind }) else { return false }
        return size.map { found.sizes.contains($0) } ?? true
    }

    /// The nudge widget's extension of `app`: `<app>.NudgeWidget`, kind `NudgeWidget`, small to large.
    static func nudge(app: String) -> WidgetExtension {
        WidgetExtension(
            bundleId: app + DeviceValue.widgetExtensionSuffix,
            kinds: [Kind(kind: InstalledApp.widgetKind, sizes: ["small", "medium", "large"])])
    }

    /// The extension's Info.plist, as a device build carries it.
    func infoPlist(app: AppInstallation) -> [String: Any] {
        [
            "CFBundleIdentifier": bundleId,
            "CFBundleName": InstalledApp.widgetKind,
            "CFBundleDisplayName": app.displayName,
            "CFBundleExecutable": InstalledApp.widgetKind,
            "CFBundlePackageType": "XPC!",
            "CFBundleShortVersionString": app.version,
            "CFBundleVersion": app.build,
            "NSExtension": ["NSExtensionPointIdentifier": WidgetExtension.pointIdentifier],
            WidgetExtension.kindsKey: kinds.map { ["kind": $0.kind, "supportedSizes": $0.sizes] },
        ]
    }

    /// Reads an extension's Info.plist (at `path`, named in errors); nil when it is not a WidgetKit extension.
    init?(info: [String: Any], path: String) throws {
        guard let point = (info["NSExtension"] as? [String: Any])?["NSExtensionPointIdentifier"] as? String,
            point == WidgetExtension.pointIdentifier
        else { return nil }
        guard let id = info["CFBundleIdentifier"] as? String else {
            throw DeviceError.malformedPlist(path: path, reason: "no CFBundleIdentifier string")
        }
        var kinds: [Kind] = []
        if let raw = info[WidgetExtension.kindsKey] {
            guard let list = raw as? [[String: Any]], list.count <= 64 else {
                throw DeviceError.malformedPlist(
                    path: path, reason: "\(WidgetExtension.kindsKey) is not an array of at most 64 dictionaries")
            }
            for (index, entry) in list.enumerated() {
                guard let kind = entry["kind"] as? String, let sizes = entry["supportedSizes"] as? [String],
                    sizes.count <= HomeScreen.sizes.count, sizes.allSatisfy(HomeScreen.sizes.contains)
                else {
                    throw DeviceError.malformedPlist(
                        path: path, reason: "\(WidgetExtension.kindsKey)[\(index)] needs a 'kind' string and "
                            + "'supportedSizes' from \(HomeScreen.sizes.joined(separator: ", "))")
                }
                kinds.append(Kind(kind: kind, sizes: sizes))
            }
        }
        do {
            try DeviceValue.identifier(id, field: "CFBundleIdentifier")
            for (index, kind) in kinds.enumerated() {
                try DeviceValue.flagKey(kind.kind, field: "\(WidgetExtension.kindsKey)[\(index)].kind")
            }
        } catch {
            throw DeviceError.malformedPlist(path: path, reason: "\(error)")
        }
        self.init(bundleId: id, kinds: kinds)
    }

    init(bundleId: String, kinds: [Kind]) {
        self.bundleId = bundleId
        self.kinds = kinds
    }
}
