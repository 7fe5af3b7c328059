// Device+Apps: installing apps and reading what is installed.
import Foundation
import SystemKit

extension Device {
    /// Every installed app, sorted by bundle id.
    public func apps() throws -> [InstalledApp] {
        var index = ContainerIndex(device: self)
        return try apps(using: &index)
    }

    /// Every installed app, sorted by bundle id, the data and bundle containers listed through `index` (once for a
    /// command that looks up containers too).
    public func apps(using index: inout ContainerIndex) throws -> [InstalledApp] {
        let data = try index.containers(.data)
        var apps: [InstalledApp] = []
        for bundle in try index.containers(.bundle) {
            guard let dataContainer = data.first(where: { $0.identifier == bundle.identifier }) else { continue }
            apps.append(try readApp(bundle: bundle, data: dataContainer))
        }
        return apps.sorted { $0.bundleId < $1.bundleId }
    }

    /// The installed app `bundleId`; throws `DeviceError.unknownApp` when it is not installed.
    public func app(_ bundleId: String) throws -> InstalledApp {
        guard let app = try apps().first(where: { $0.bundleId == bundleId }) else {
            throw DeviceError.unknownApp(bundleId)
        }
        return app
    }

    /// The most `.appex` directories one bundle's `PlugIns` may hold (each Info.plist is read).
    static let maxExtensions = 32

    /// Reads the bundle in `bundle`: its `.app`'s Info.plist, entitlements, nudge configuration, extensions.
    func readApp(bundle: Container, data: Container) throws -> InstalledApp {
        let app = try appDirectory(in: bundle)
        let infoPath = "\(app)/\(InstalledApp.File.info)"
        guard let info = try PropertyListFile.readDictionary(infoPath, in: directory) else {
            throw DeviceError.malformedPlist(path: path(infoPath), reason: "missing")
        }
        let entitlementsPath = "\(app)/\(InstalledApp.File.entitlements)"
        let nudgePath = "\(app)/\(InstalledApp.File.nudge)"
        var extensions: [(info: [String: Any], path: String)] = []
        let plugIns = "\(app)/\(InstalledApp.File.plugIns)"
        let names = (try directory.names(plugIns) ?? []).map { String(decoding: $0, as: UTF8.self) }
            .filter { $0.hasSuffix(".appex") }.sorted()
        guard names.count <= Device.maxExtensions else {
            throw DeviceError.malformedFile(
                path: path(plugIns), reason: "\(names.count) extensions, more than \(Device.maxExtensions)")
        }
        for name in names {
            let appexInfo = "\(plugIns)/\(name)/\(InstalledApp.File.info)"
            if let plist = try PropertyListFile.readDictionary(appexInfo, in: directory) {
                extensions.append((plist, path(appexInfo)))
            }
        }
        // The .xcent wins; without it, the entitlements the executable carries (a Simulator build's).
        var entitlements = try PropertyListFile.readDictionary(entitlementsPath, in: directory)
        var entitlementsShown = path(entitlementsPath)
        if entitlements == nil,
            let found = try executableEntitlements(app: app, info: info, infoPath: path(infoPath))
        {
            (entitlements, entitlementsShown) = (found.plist, found.path)
        }
        let files = InstalledApp.BundleFiles(
            info: info, infoPath: path(infoPath),
            entitlements: entitlements, entitlementsPath: entitlementsShown,
            nudge: try PropertyListFile.readDictionary(nudgePath, in: directory), nudgePath: path(nudgePath),
            extensions: extensions)
        return try InstalledApp(files: files, appPath: app, bundle: bundle, data: data)
    }

    /// Installs (or reinstalls) an app: bundle container with its `.app` (Info.plist, entitlements, nudge
    /// configuration, widget extension), data container, each App Group container (created if missing, shared
    /// if another app has it) and the widget's plugin container (`MCMMetadataInfo` naming the app as parent).
    /// Existing data and group containers are found by identifier and kept, as a reinstall keeps data. An app
    /// with the widget but no group gets `group.<bundle id>`: the marker and flag need one. A new app's icon
    /// goes at the end of the last home-screen page (a reinstall leaves the layout as it is).
    @discardableResult
    public func install(_ request: AppInstallation) throws -> InstalledApp {
        var index = ContainerIndex(device: self)
        return try install(request, using: &index)
    }

    /// `install`, finding and creating containers through `index` (for installing many apps in a row). A
    /// restore's reinstall passes `placesIcon: false`: the restored home screen already has the icons (and
    /// reading and writing it once per app would cost N² for N apps).
    @discardableResult
    public func install(
        _ request: AppInstallation, using index: inout ContainerIndex, placesIcon: Bool = true
    ) throws -> InstalledApp {
        try request.validate()
        var request = request
        if request.groups.isEmpty && request.widget != nil { request.groups = ["group.\(request.bundleId)"] }
        let existed = try index.container(.bundle, identifier: request.bundleId) != nil
        let bundle = try index.ensure(.bundle, identifier: request.bundleId)
        let app = "\(bundle.relativePath)/\(request.displayName).app"
        for name in try directory.names(bundle.relativePath) ?? [] {
            let name = String(decoding: name, as: UTF8.self)
            if name.hasSuffix(".app") { try directory.removeTree("\(bundle.relativePath)/\(name)") }
        }
        let files = try InstalledApp.bundleFiles(for: request)
        for (file, plist) in files {
            try PropertyListFile.write(plist, to: "\(app)/\(file)", in: directory)
        }
        let data = try index.ensure(.data, identifier: request.bundleId)
        for group in request.groups { try index.ensure(.group, identifier: group) }
        if request.widget != nil {
            try index.ensure(
                .plugin, identifier: request.bundleId + DeviceValue.widgetExtensionSuffix, parent: request.bundleId)
        }
        if !existed && placesIcon { try addAppIcon(request.bundleId) }
        // The app as just written (read back from memory: a restore installs many apps in a row).
        func plist(_ name: String) -> [String: Any]? { files.first { $0.0 == name }?.1 as? [String: Any] }
        let appex = "\(InstalledApp.File.plugIns)/\(WidgetExtension.nudgeDirectory)/\(InstalledApp.File.info)"
        let written = InstalledApp.BundleFiles(
            info: plist(InstalledApp.File.info) ?? [:], infoPath: path("\(app)/\(InstalledApp.File.info)"),
            entitlements: plist(InstalledApp.File.entitlements),
            entitlementsPath: path("\(app)/\(InstalledApp.File.entitlements)"),
            nudge: plist(InstalledApp.File.nudge), nudgePath: path("\(app)/\(InstalledApp.File.nudge)"),
            extensions: plist(appex).map { [($0, path("\(app)/\(appex)"))] } ?? [])
        return try InstalledApp(files: written, appPath: app, bundle: bundle, data: data)
    }

    /// Removes an app: its bundle, data and widget-extension containers, each App Group container no other
    /// installed app belongs to (as iOS removes a group with its last app), its icon and its widgets from the
    /// home screen. Returns the App Group ids removed. Throws `DeviceError.unknownApp` when not installed.
    @discardableResult
    public func uninstall(_ bundleId: String) throws -> [String] {
        let apps = try self.apps()
        guard let app = apps.first(where: { $0.bundleId == bundleId }) else { throw DeviceError.unknownApp(bundleId) }
        let shared = Set(apps.filter { $0.bundleId != bundleId }.flatMap(\.groups))
        var removedGroups: [String] = []
        for group in app.groups where !shared.contains(group) {
            if let container = try container(.group, identifier: group) {
                try directory.removeTree(container.relativePath)
                removedGroups.append(group)
            }
        }
        if let plugin = try container(.plugin, identifier: app.widgetExtensionId) {
            try directory.removeTree(plugin.relativePath)
        }
        try directory.removeTree(app.dataContainer.relativePath)
        try directory.removeTree(app.bundleContainer.relativePath)
        if try PropertyListFile.read(DeviceLayout.homeScreen, in: directory) != nil {
            var layout = try homeScreen()
            let icon = layout.removeAppIcon(bundleId)
            if layout.removeWidgets(app: bundleId) > 0 || icon { try save(layout) }
        }
        return removedGroups
    }

    /// The App Group container `groupId`; throws `DeviceError.unknownGroup` when missing.
    public func groupContainer(_ groupId: String) throws -> Container {
        guard let container = try container(.group, identifier: groupId) else {
            throw DeviceError.unknownGroup(groupId)
        }
        return container
    }

    /// `<bundle container>/<Name>.app` relative to ROOT: the first `.app` directory in the container.
    func appDirectory(in bundle: Container) throws -> String {
        let names = (try directory.names(bundle.relativePath)) ?? []
        let app = names.lazy.map { String(decoding: $0, as: UTF8.self) }.filter { $0.hasSuffix(".app") }.min()
        guard let app else {
            throw DeviceError.malformedPlist(path: "\(bundle.path)/<Name>.app/Info.plist", reason: "missing")
        }
        return "\(bundle.relativePath)/\(app)"
    }
}
