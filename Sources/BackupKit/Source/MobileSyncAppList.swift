// MobileSyncAppList: the apps a MobileSync backup's restore reinstalls, with their App Groups and widgets.
import DeviceKit
import Foundation
import Glibc
import MobileSyncKit
import SystemKit

/// The apps to reinstall after a MobileSync restore, as a manifest header (`Manifest.Header`, validated as any
/// header is). devicectl's own plain backups keep its manifest beside the rows (`devicectl-manifest.jsonl`): its
/// header names each app's groups and widget settings, and is used when it reads and validates. Otherwise (a
/// phone's backup, an encrypted one) the apps are `Manifest.plist` `Applications` and `Info.plist`
/// `Installed Applications`; an App Group belongs to the app whose bundle id it contains as whole components
/// (`group.com.example.news`, `TEAMID.groups.com.example.news`; the longest such id), since a backup keeps no
/// entitlements; an app has the nudge widget when its extension's domain (`<bundle id>.NudgeWidget`) is there.
enum MobileSyncAppList {
    /// The longest first line of devicectl's manifest read (its header: apps, groups, widgets).
    static let headerLineLimit = 4 << 20

    static func header(
        source: MobileSyncSource, containers: [RestorePlan.StagedContainer], warnings: inout [String]
    ) throws(RestoreError) -> Manifest.Header {
        // Whole seconds, as the backup's own date is shown elsewhere.
        let created = Timestamp.format(
            seconds: Timestamp.wholeSeconds(source.info.date ?? Date(timeIntervalSince1970: 0)), nanoseconds: 0)
        if let line = try? firstLine(source), case .header(let header)? = try? ManifestLine.parseAnySpelling(line[...]) {
            do {
                try header.validate()
                return header
            } catch {
                warnings.append(
                    "\(source.path)/\(MobileSyncSink.manifestName): its header is unusable (\(error)); the apps come "
                        + "from Manifest.plist")
            }
        }
        var ids = Set(source.info.applications.map(\.bundleId))
        ids.formUnion(source.info.installedApplications ?? [])
        let bundles = ids.sorted()
        let plugins = Set(containers.filter { $0.kind == .plugin }.map(\.identifier))
        var groupsByApp: [String: [String]] = [:]
        for group in containers where group.kind == .group {
            if let owner = owner(of: group.identifier, among: bundles) {
                groupsByApp[owner, default: []].append(group.identifier)
            }
        }
        var apps: [Manifest.App] = []
        for id in bundles {
            let widget = plugins.contains(id + ".NudgeWidget") ? Manifest.WidgetSettings(NudgeSettings()) : nil
            apps.append(
                Manifest.App(
                    bundleId: id, name: AppInstallation(bundleId: id).displayName, groups: groupsByApp[id] ?? [],
                    widget: widget))
        }
        let header = Manifest.Header(
            tool: "MobileSync", created: created, source: Manifest.Source(udid: nil), apps: apps,
            groups: apps.flatMap(\.groups), widgets: [])
        do {
            try header.validate()
        } catch {
            throw RestoreError.badManifest(.mobileSyncApps(backup: source.path, error))
        }
        return header
    }

    /// The app among `bundles` whose id `group` contains as whole dot-separated components; the longest id wins.
    static func owner(of group: String, among bundles: [String]) -> String? {
        let components = group.split(separator: ".")
        var best: String?
        for bundle in bundles {
            let parts = bundle.split(separator: ".")
            guard !parts.isEmpty, parts.count <= components.count, bundle.count > (best?.count ?? 0) else { continue }
            for start in 0...(components.count - parts.count)
            where components[start..<(start + parts.count)].elementsEqual(parts) {
                best = bundle
                break
            }
        }
        return best
    }

    /// The first line of devicectl's manifest in the backup (nil: none, or no newline within the limit).
    private static func firstLine(_ source: MobileSyncSource) throws -> [UInt8]? {
        let manifest = FileDescriptor(
            rawValue: openat(source.directory, MobileSyncSink.manifestName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC),
            path: MobileSyncSink.manifestName)
        guard manifest.rawValue >= 0 else { return nil }
        let fd = manifest.rawValue
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        let length = min(Int(status.st_size), headerLineLimit)
        var bytes = [UInt8](repeating: 0, count: length)
        let read = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, length, 0) }
        guard read > 0, let end = bytes[0..<read].firstIndex(of: 0x0A) else { return nil }
        return Array(bytes[0..<end])
    }
}
