// HomeScreen: SpringBoard's home-screen layout (Library/SpringBoard/IconState.plist), kept whole.
import Foundation
import PropertyListKit

/// The home-screen layout stored at `Library/SpringBoard/IconState.plist`, in SpringBoard's own schema:
/// `iconLists` (pages), `listUniqueIdentifiers`, `buttonBar` (the dock), `today`, `favoriteToday`, `ignored`,
/// `widgetVersion`, folders (`listType` `folder`), flat WidgetKit widget dicts (`iconType` `custom`) and Smart
/// Stacks (`elements`). Every key and entry devicectl does not model is kept as read and written back.
/// devicectl's old layout, `{widgets: [{app, kind}]}`, is read (each widget a medium widget of the app's
/// `<app>.NudgeWidget` extension on page 1) and written in SpringBoard's schema the next time it changes.
public struct HomeScreen: Sendable, Equatable {
    /// Caps on a hostile file, checked while it is converted (before anything of it is used).
    public static let limits = PropertyListLimits(depth: 12, values: 100_000)
    /// At most this many pages, and this many entries in one page, dock, folder page or Today list.
    public static let maxPages = 500
    public static let maxEntries = 5_000
    /// The widget sizes (`gridSize`) SpringBoard archives; unknown strings are read as `small`, as it does.
    public static let sizes = ["small", "medium", "large", "extraLarge", "newsLargeTall"]
    /// The root lists that hold icons, besides `iconLists`.
    static let lists = ["buttonBar", "today", "favoriteToday", "ignored"]

    /// The root dictionary, every key as read.
    var root: [String: PropertyListValue]
    /// True when the file was in devicectl's old schema (`widgets`); the next write upgrades it.
    public internal(set) var isLegacy = false
    /// Every WidgetKit widget placed: pages in order (stacks in place), then the Today view, then the dock.
    public internal(set) var placedWidgets: [PlacedWidget] = []

    /// An empty home screen: one empty page and an empty dock.
    public init() {
        root = [
            "iconLists": .array([.array([])]),
            "listUniqueIdentifiers": .array([.string(UUID().uuidString)]),
            "buttonBar": .array([]),
            "widgetVersion": .integer(1),
        ]
    }

    /// The apps whose widgets are placed (`containerBundleIdentifier`), each once, in placement order.
    public var widgets: [String] {
        var seen = Set<String>()
        return placedWidgets.compactMap(\.app).filter { seen.insert($0).inserted }
    }

    /// Bundle ids of the app icons on the pages, in folders and in the dock, in order.
    public var appIcons: [String] {
        var icons: [String] = []
        func collect(_ list: [PropertyListValue]) {
            for entry in list {
                if let id = entry.string { icons.append(id) }
                if let folder = entry.dictionary, folder["listType"]?.string == "folder" {
                    for page in folder["iconLists"]?.array ?? [] { collect(page.array ?? []) }
                }
            }
        }
        for page in pages { collect(page) }
        collect(root["buttonBar"]?.array ?? [])
        return icons
    }

    /// The pages (`iconLists`).
    var pages: [[PropertyListValue]] { (root["iconLists"]?.array ?? []).map { $0.array ?? [] } }

    /// The root dictionary as `PropertyListSerialization` writes it (binary, by `Device.saveHomeScreen`).
    public var plist: [String: Any] { root.mapValues(\.foundation) }

    /// Reads the layout from a parsed plist (the file at `path`, named in errors). Refuses, as a malformed
    /// plist: a file deeper or larger than `limits`, one with both or neither of `iconLists` and the old
    /// `widgets`, a known key of the wrong type, a widget without its identifiers, a widget id used twice.
    init(plist: [String: Any], path: String) throws {
        try self.init(value: try PropertyListValue(plist, path: path, limits: HomeScreen.limits), path: path)
    }

    /// The layout in `object`, the file at `path` as PropertyListFile.readObject reads it.
    init(object: PropertyListObject, path: String) throws {
        try self.init(value: try PropertyListValue(object, path: path, limits: HomeScreen.limits), path: path)
    }

    private init(value: PropertyListValue, path: String) throws {
        guard case .dictionary(let root) = value else {
            throw DeviceError.malformedPlist(path: path, reason: "the top level is not a dictionary")
        }
        switch (root["iconLists"], root["widgets"]) {
        case (.some, .some):
            throw DeviceError.malformedPlist(
                path: path, reason: "it has both SpringBoard's 'iconLists' and devicectl's old 'widgets' list")
        case (.none, .some(let legacy)):
            self.root = try HomeScreen.upgrade(legacy: legacy, root: root, path: path)
            isLegacy = true
        case (.none, .none):
            throw DeviceError.malformedPlist(
                path: path, reason: "no 'iconLists' (not a SpringBoard home-screen layout)")
        case (.some, .none):
            self.root = root
        }
        placedWidgets = try HomeScreenReader(path: path).read(self.root)
    }

    /// Re-reads the widgets after a change made by devicectl itself (its own entries are well formed).
    mutating func reindex() {
        placedWidgets = (try? HomeScreenReader(path: "").read(root)) ?? []
    }

    /// The old `{widgets: [{app, kind}]}` as SpringBoard's root: the widgets on page 1, other keys kept.
    private static func upgrade(
        legacy: PropertyListValue, root: [String: PropertyListValue], path: String
    ) throws -> [String: PropertyListValue] {
        guard let entries = legacy.array else {
            throw DeviceError.malformedPlist(path: path, reason: "'widgets' is \(legacy.typeName), not an array")
        }
        guard entries.count <= maxEntries else {
            throw DeviceError.malformedPlist(path: path, reason: "more than \(maxEntries) widgets")
        }
        var page: [PropertyListValue] = []
        for (index, entry) in entries.enumerated() {
            guard let app = entry.dictionary?["app"]?.string else {
                throw DeviceError.malformedPlist(path: path, reason: "a widget without an 'app' string")
            }
            do {
                try DeviceValue.bundleIdentifier(app, field: "widgets[\(index)].app")
            } catch {
                throw DeviceError.malformedPlist(path: path, reason: "\(error)")
            }
            let kind = entry.dictionary?["kind"]?.string ?? InstalledApp.widgetKind
            let seed = "devicectl-old-layout:\(index):\(app)"
            page.append(
                .dictionary(
                    widgetIcon(
                        element: element(app: app, extensionId: app + DeviceValue.widgetExtensionSuffix, kind: kind,
                            id: derivedUUID(seed + ":element")),
                        size: "medium", displayId: derivedUUID(seed + ":icon"))))
        }
        var upgraded = root
        upgraded["widgets"] = nil
        upgraded["iconLists"] = .array([.array(page)])
        upgraded["listUniqueIdentifiers"] = .array([.string(derivedUUID("devicectl-old-layout:page"))])
        upgraded["buttonBar"] = upgraded["buttonBar"] ?? .array([])
        upgraded["widgetVersion"] = upgraded["widgetVersion"] ?? .integer(1)
        return upgraded
    }

    /// A widget element's keys, as SpringBoard archives them.
    static func element(app: String, extensionId: String, kind: String, id: String) -> [String: PropertyListValue] {
        [
            "elementType": .string("widget"),
            "widgetIdentifier": .string(kind),
            "bundleIdentifier": .string(extensionId),
            "containerBundleIdentifier": .string(app),
            "uniqueIdentifier": .string(id),
        ]
    }

    /// A single widget's icon: the element's keys flat in a custom icon.
    static func widgetIcon(
        element: [String: PropertyListValue], size: String, displayId: String
    ) -> [String: PropertyListValue] {
        element.merging(
            [
                "iconType": .string("custom"),
                "displayIdentifier": .string(displayId),
                "gridSize": .string(size),
                "allowsSuggestions": .bool(false),
                "allowsExternalSuggestions": .bool(false),
            ], uniquingKeysWith: { $1 })
    }

    /// An upper-case UUID string derived from `seed` (SHA-256, version 4 bits set): the same old layout reads
    /// with the same identifiers every time.
    static func derivedUUID(_ seed: String) -> String {
        var digest = SHA256Hash.of(Array(seed.utf8))
        digest[6] = (digest[6] & 0x0F) | 0x40
        digest[8] = (digest[8] & 0x3F) | 0x80
        let bytes = Array(digest[0..<16])
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15])).uuidString
    }
}
