// DevicePathRules: what iOS never backs up, as paths relative to a device root.
import DeviceKit

/// The iOS rules on a device root: app bundles, `Library/Caches`, `tmp` and `SystemData` directly inside every
/// container that is not a bundle (app data, App Group, extension data: every `ContainerKind` DeviceKit lays
/// out), the device-local state, and the one place the general exclusion attributes are ignored (the device's
/// own `Library/Preferences`). Each rule names one exact depth, so the walker (which never descends into a
/// skipped directory) needs no prefix matching.
enum DevicePathRules {
    private static let containers = Array("Containers".utf8)
    private static let deviceLocal = Array(DeviceLayout.deviceLocal.utf8)
    private static let bundleClass = ContainerKind.bundle.directory.split(separator: "/").map { Array($0.utf8) }
    /// Every class directory holding containers whose contents are backed up (all but bundles).
    private static let dataClasses = ContainerKind.allCases.filter { $0 != .bundle }.map { kind in
        kind.directory.split(separator: "/").map { Array($0.utf8) }
    }
    /// Inside a container: `["Library", "Caches"]`, `["tmp"]` and `["SystemData"]`, with the reason each carries.
    private static let neverBackedUp: [([[UInt8]], ExclusionReasons)] = [
        ("Library/Caches", .iosCaches), ("tmp", .iosTmp), ("SystemData", .iosSystemData),
    ].map { path, reason in (path.split(separator: "/").map { Array($0.utf8) }, reason) }
    /// `Library/Preferences` of the device root (the device's `/var/mobile/Library/Preferences`).
    private static let devicePreferences = Array("Library/Preferences".utf8)

    /// The iOS reasons for `path` (relative to the device root, `/`-separated, no leading `./`). Asked for every
    /// entry of a walk (and of the count beside it): nothing is allocated (`PathComponents`).
    static func reasons(for path: UnsafeBufferPointer<UInt8>) -> ExclusionReasons {
        guard let first = path.first, first == UInt8(ascii: "C") || first == UInt8(ascii: "D") else { return [] }
        // No rule is deeper than `maxDepth` components.
        return PathComponents.withBounds(of: path, atMost: maxDepth) { bounds in
            reasons(of: Components(path: path, bounds: bounds))
        } ?? []
    }

    /// The deepest rule's components: `Containers/Data/Application/<UUID>/Library/Caches`.
    private static let maxDepth = 6

    /// A path's components, as bounds into its bytes.
    private struct Components {
        let path: UnsafeBufferPointer<UInt8>
        let bounds: UnsafeBufferPointer<Range<Int>>

        var count: Int { bounds.count }

        /// Whether component `index` is `name`.
        func equals(_ index: Int, _ name: [UInt8]) -> Bool {
            UnsafeBufferPointer(rebasing: path[bounds[index]]).elementsEqual(name)
        }

        /// Whether the components from `offset` on start with `prefix` and go on past it.
        func startsWith(_ prefix: [[UInt8]], from offset: Int = 0) -> Bool {
            count - offset > prefix.count && prefix.indices.allSatisfy { equals(offset + $0, prefix[$0]) }
        }
    }

    private static func reasons(of parts: Components) -> ExclusionReasons {
        if parts.count == 1 { return parts.equals(0, deviceLocal) ? .deviceLocal : [] }
        guard parts.equals(0, containers) else { return [] }
        if parts.count == 4 && parts.startsWith(bundleClass) { return .iosAppBundle }
        guard parts.count >= 5, dataClasses.contains(where: { parts.startsWith($0) }) else { return [] }
        // parts[3] is the container's UUID directory; the rest must be exactly a never-backed-up path.
        for (rule, reason) in neverBackedUp where rule.count == parts.count - 4 {
            if rule.indices.allSatisfy({ parts.equals(4 + $0, rule[$0]) }) { return reason }
        }
        return []
    }

    /// Whether `path` is the device's `Library/Preferences` or below it, where BackupAgent2 removes the general
    /// exclusion attribute and backs the file up anyway (ios-device-layout.md §4.2, `MBFileScanner`).
    static func ignoresGeneralAttributes(_ path: UnsafeBufferPointer<UInt8>) -> Bool {
        guard path.count >= devicePreferences.count, path.first == UInt8(ascii: "L") else { return false }
        guard path.prefix(devicePreferences.count).elementsEqual(devicePreferences) else { return false }
        return path.count == devicePreferences.count || path[devicePreferences.count] == UInt8(ascii: "/")
    }
}
