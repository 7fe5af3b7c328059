// DeviceInventory: the manifest header's source identity and what a restore must reinstall.
import DeviceKit

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
        let state = try device.validatedState()
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
