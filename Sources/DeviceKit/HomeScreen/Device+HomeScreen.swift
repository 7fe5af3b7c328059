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
        let app = try app(bundleId)
        guard app.widget != nil else { throw DeviceError.noWidget(app: bundleId) }
        var layout = try homeScreen()
        guard !layout.widgets.contains(bundleId) else { return }
        layout.widgets.append(bundleId)
        try PropertyListFile.write(layout.plist, to: DeviceLayout.homeScreen, in: directory)
    }
}
