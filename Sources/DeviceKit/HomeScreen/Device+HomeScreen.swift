// Device+HomeScreen: reading the layout, placing and removing widgets, writing it as SpringBoard does.

extension Device {
    /// The home-screen layout (an empty one when the device has no IconState.plist yet). Read in any plist
    /// format; devicectl's old layout is read too (`HomeScreen.isLegacy`) and upgraded by the next write.
    public func homeScreen() throws -> HomeScreen {
        guard let object = try PropertyListFile.readObject(DeviceLayout.homeScreen, in: directory) else {
            return HomeScreen()
        }
        return try HomeScreen(object: object, path: path(DeviceLayout.homeScreen))
    }

    /// Writes `layout` as SpringBoard does: a binary plist, atomically, the directory created if missing.
    public func save(_ layout: HomeScreen) throws {
        try PropertyListFile.write(layout.plist, to: DeviceLayout.homeScreen, in: directory)
    }

    /// Puts `bundleId`'s icon on the home screen (the end of the last page) unless it is already there.
    func addAppIcon(_ bundleId: String) throws {
        var layout = try homeScreen()
        if layout.addAppIcon(bundleId) { try save(layout) }
    }

    /// Places `bundleId`'s widget at the end of the home screen (once; placing it again changes nothing).
    public func placeWidget(app bundleId: String) throws {
        try placeWidgets(apps: [bundleId])
    }

    /// Places a widget of `placement.app`, checking the app has the extension and the extension offers the
    /// kind in that size. Returns the widget and whether the layout changed.
    public func placeWidget(_ placement: HomeScreen.Placement) throws -> (widget: PlacedWidget, added: Bool) {
        let app = try app(placement.app)
        guard let appex = app.widgetExtension else { throw DeviceError.noWidget(app: placement.app) }
        guard appex.offers(placement.kind) else {
            throw HomeScreenError.unsupported(
                app: placement.app, kind: placement.kind, size: nil, offered: appex.kinds.map(\.kind))
        }
        guard appex.offers(placement.kind, size: placement.size) else {
            throw HomeScreenError.unsupported(
                app: placement.app, kind: placement.kind, size: placement.size,
                offered: appex.kinds.first { $0.kind == placement.kind }?.sizes ?? [])
        }
        var placement = placement
        placement.extensionId = appex.bundleId
        var layout = try homeScreen()
        let result = try layout.place(placement)
        if result.added { try save(layout) }
        return result
    }

    /// Places the widgets of `bundleIds`, in order, at the end of the last page (medium, the extension's first
    /// kind), skipping apps with a widget already placed: the layout is read once and written once (not at all
    /// when nothing changes), so placing N widgets costs N, not N² (a restore places every widget its
    /// manifest lists). `installed` is the device's apps when the caller has them (a restore's reinstall just
    /// made them); nil reads them once. Throws `DeviceError.unknownApp` or `.noWidget` before anything is
    /// written.
    public func placeWidgets(apps bundleIds: [String], installed: [InstalledApp]? = nil) throws {
        var apps: [String: InstalledApp] = [:]
        for app in try installed ?? self.apps() where apps[app.bundleId] == nil { apps[app.bundleId] = app }
        var layout = try homeScreen()
        var placed = Set(layout.widgets)
        var changed = false
        for bundleId in bundleIds {
            guard let app = apps[bundleId] else { throw DeviceError.unknownApp(bundleId) }
            guard let appex = app.widgetExtension else { throw DeviceError.noWidget(app: bundleId) }
            guard placed.insert(bundleId).inserted else { continue }
            let size = appex.offers(appex.defaultKind, size: "medium") ? "medium" : appex.kinds.first?.sizes.first
            try layout.place(
                HomeScreen.Placement(
                    app: bundleId, extensionId: appex.bundleId, kind: appex.defaultKind, size: size ?? "medium",
                    page: nil, stackWith: nil))
            changed = true
        }
        if changed { try save(layout) }
    }
}
