// DeviceInventory: the manifest header's source identity and what a restore must reinstall.
import DeviceKit
import MobileSyncKit

/// Reads, from a device root, what the manifest header records: the UDID, the installed apps (with
/// their App Groups and widget settings), every App Group, and the widgets on the home screen.
/// Any other directory gives an empty inventory (udid null).
enum DeviceInventory {
    static func header(
        root: String, deviceRoot: Bool, created: String, tool: String, engine: AppleBackupEngine
    ) throws -> Manifest.Header {
        guard deviceRoot else {
            return Manifest.Header(
                tool: tool, created: created, source: .init(udid: nil), apps: [], groups: [], widgets: [],
                engine: engine)
        }
        let device = try Device.open(root)
        // Every plist a restore of this archive will read (all container metadata, Info.plists, the home
        // screen, the identity): a malformed one fails the backup now, naming it, rather than its restore.
        return header(try device.validatedState(), created: created, tool: tool, engine: engine)
    }

    /// What a MobileSync backup of the device root `root` records: the manifest header, the device as
    /// Lockdown describes it, the user apps, and the map of its containers onto domains.
    static func mobileSync(
        root: String, created: String, tool: String, engine: AppleBackupEngine
    ) throws -> (Manifest.Header, BackupProperties.DeviceDescription, [BackupProperties.Application], DomainMap) {
        let device = try Device.open(root)
        let state = try device.validatedState()
        let name = root.split(separator: "/").last.map(String.init) ?? "iPhone"
        let description = BackupProperties.DeviceDescription(
            udid: state.identity.udid, name: name, productType: simulatedProduct.type,
            productVersion: simulatedProduct.version, buildVersion: simulatedProduct.build, serialNumber: "DEVICECTL")
        let applications = state.apps.map { app in
            BackupProperties.Application(bundleId: app.bundleId, version: app.build, path: devicePath(ofBundle: app.appPath))
        }
        return (
            header(state, created: created, tool: tool, engine: engine), description, applications,
            try DomainMap(device: device)
        )
    }

    /// Where iOS keeps an app bundle: `/var/containers/Bundle/...` (bundles are not below /var/mobile).
    private static func devicePath(ofBundle path: String) -> String {
        path.hasPrefix("Containers/") ? "/var/containers/" + path.dropFirst("Containers/".count) : "/var/mobile/" + path
    }

    /// What a simulated device says it is in a MobileSync backup's Lockdown: an iPhone on iOS 18.2 (any
    /// `ProductVersion` above 10.2 selects the Manifest.db layout every reader expects).
    static let simulatedProduct = (type: "iPhone17,3", version: "18.2", build: "22C152")

    private static func header(
        _ state: (identity: DeviceIdentity, apps: [InstalledApp], homeScreen: HomeScreen), created: String,
        tool: String, engine: AppleBackupEngine
    ) -> Manifest.Header {
        let apps = state.apps.map { app in
            Manifest.App(
                bundleId: app.bundleId, name: app.name, groups: app.groups,
                widget: app.widget.map(Manifest.WidgetSettings.init))
        }
        let groups = Set(apps.flatMap(\.groups)).sorted()
        // The nudge widgets placed (a system app's widget on a real layout is neither installed nor reinstalled).
        let nudging = Set(apps.filter { $0.widget != nil }.map(\.bundleId))
        let widgets = state.homeScreen.widgets.filter(nudging.contains).map { Manifest.Widget(app: $0) }
        return Manifest.Header(
            tool: tool, created: created, source: .init(udid: state.identity.udid), apps: apps, groups: groups,
            widgets: widgets, engine: engine)
    }
}
