// Device+Apps: installing apps and reading what is installed.
import Foundation
import SystemKit

extension Device {
    /// Every installed app, sorted by bundle id.
    public func apps() throws -> [InstalledApp] {
        let data = try containers(.data)
        var apps: [InstalledApp] = []
        for bundle in try containers(.bundle) {
            let infoPath = try infoPlistPath(in: bundle)
            guard let info = try PropertyListFile.readDictionary(infoPath, in: directory) else {
                throw DeviceError.malformedPlist(path: path(infoPath), reason: "missing")
            }
            guard let dataContainer = data.first(where: { $0.identifier == bundle.identifier }) else { continue }
            apps.append(try InstalledApp(info: info, path: path(infoPath), bundle: bundle, data: dataContainer))
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

    /// Installs (or reinstalls) an app: bundle container with its Info.plist, data container, each App
    /// Group container (created if missing, shared if another app has it) and the widget's plugin container.
    /// Existing data and group containers are found by identifier and kept, as a reinstall keeps data.
    /// An app with the widget but no group gets `group.<bundle id>`: the marker and flag need one.
    @discardableResult
    public func install(_ request: AppInstallation) throws -> InstalledApp {
        var index = ContainerIndex(device: self)
        return try install(request, using: &index)
    }

    /// `install`, finding and creating containers through `index` (for installing many apps in a row).
    @discardableResult
    public func install(_ request: AppInstallation, using index: inout ContainerIndex) throws -> InstalledApp {
        try request.validate()
        var request = request
        if request.groups.isEmpty && request.widget != nil { request.groups = ["group.\(request.bundleId)"] }
        let bundle = try index.ensure(.bundle, identifier: request.bundleId)
        let infoPath = "\(bundle.relativePath)/\(request.displayName).app/Info.plist"
        if let existing = try? infoPlistPath(in: bundle), existing != infoPath {
            try directory.removeTree(RootPath.parent(of: existing))
        }
        let info = try InstalledApp.infoPlist(for: request)
        try PropertyListFile.write(info, to: infoPath, in: directory)
        let data = try index.ensure(.data, identifier: request.bundleId)
        for group in request.groups { try index.ensure(.group, identifier: group) }
        if request.widget != nil { try index.ensure(.plugin, identifier: "\(request.bundleId).NudgeWidget") }
        return try InstalledApp(info: info, path: path(infoPath), bundle: bundle, data: data)
    }

    /// The App Group container `groupId`; throws `DeviceError.unknownGroup` when missing.
    public func groupContainer(_ groupId: String) throws -> Container {
        guard let container = try container(.group, identifier: groupId) else { throw DeviceError.unknownGroup(groupId) }
        return container
    }

    /// `<bundle container>/<Name>.app/Info.plist` relative to ROOT: the first `.app` directory in the container.
    func infoPlistPath(in bundle: Container) throws -> String {
        let names = (try directory.names(bundle.relativePath)) ?? []
        let app = names.lazy.map { String(decoding: $0, as: UTF8.self) }.first { $0.hasSuffix(".app") }
        guard let app else {
            throw DeviceError.malformedPlist(path: "\(bundle.path)/<Name>.app/Info.plist", reason: "missing")
        }
        return "\(bundle.relativePath)/\(app)/Info.plist"
    }
}
