// Device+HomeScreen: reading the layout and placing widgets.

extension Device {
    /// The home-screen layout (empty when the device has never had a widget placed).
    public func homeScreen() throws -> HomeScreen {
        guard let plist = try PropertyListFile.readDictionary(DeviceLayout.homeScreen, in: directory) else {
            return HomeScreen()
        }
        return try HomeScreen(plist: plist, path: path(DeviceLayout.homeScreen))
    }

    /// Places `bundleId`'s widget at the end of the home screen (once; placing it again changes nothing).
    public func placeWidget(app bundleId: String) throws {
        try placeWidgets(apps: [bundleId])
    }

    /// Places the widgets of `bundleIds`, in order, at the end of the home screen, skipping those already
    /// placed: the layout is read once and written once (not at all when nothing changes), so placing N
    /// widgets costs N, not N² (a restore places every widget its manifest lists). `installed` is the
    /// device's apps when the caller has them (a restore's reinstall just made them); nil reads them once.
    /// Throws `DeviceError.unknownApp` or `.noWidget` before anything is written.
    public func placeWidgets(apps bundleIds: [String], installed: [InstalledApp]? = nil) throws {
        var apps: [String: InstalledApp] = [:]
        for app in try installed ?? self.apps() where apps[app.bundleId] == nil { apps[app.bundleId] = app }
        var layout = try homeScreen()
        var placed = Set(layout.widgets)
        let before = layout.widgets.count
        for bundleId in bundleIds {
            guard let app = apps[bundleId] else { throw DeviceError.unknownApp(bundleId) }
            guard app.widget != nil else { throw DeviceError.noWidget(app: bundleId) }
            if placed.insert(bundleId).inserted { layout.widgets.append(bundleId) }
        }
        guard layout.widgets.count > before else { return }
        try PropertyListFile.write(layout.plist, to: DeviceLayout.homeScreen, in: directory)
    }
}
