// DeviceInventory: the manifest header's source identity and what a restore must reinstall.
import DeviceKit

/// Reads, from a device root, what the manifest header records: the UDID, the installed apps (with
/// their App Groups and widget settings), every App Group, and the widgets on the home screen.
/// Any other directory gives an empty inventory (udid null).
enum DeviceInventory {
    static func header(root: String, deviceRoot: Bool, created: String, tool: String) throws -> Manifest.Header {
        guard deviceRoot else {
            return Manifest.Header(tool: tool, created: created, source: .init(udid: nil), apps: [], groups: [], widgets: [])
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
        let widgets = state.homeScreen.widgets.map { Manifest.Widget(app: $0) }
        return Manifest.Header(
            tool: tool, created: created, source: .init(udid: state.identity.udid), apps: apps, groups: groups,
            widgets: widgets)
    }
}
