// Device+Adopt: making a device of an existing Simulator-shaped data/ directory.
import Foundation
import Glibc
import SystemKit

extension Device {
    /// Whether `root` looks like an iOS (Simulator) data directory: a `Containers/Bundle/Application` or
    /// `Containers/Data/Application` directory, or `Library/SpringBoard/IconState.plist`.
    public static func looksLikeDataDirectory(at root: String) -> Bool {
        guard let resolved = try? RootPath.resolve(root), let directory = try? ContainedRoot(opening: resolved) else {
            return false
        }
        return Device(directory: directory).looksLikeDataDirectory
    }

    /// Why `root`, which `lacksIdentity`, is not a device: laid out like one (repair it) or a data directory
    /// (adopt it).
    public static func missingIdentity(at root: String) -> DeviceError {
        guard let resolved = try? RootPath.resolve(root), let directory = try? ContainedRoot(opening: resolved) else {
            return .notADevice(root)
        }
        return Device(directory: directory).identitylessError(root)
    }

    /// A device that lost its identity has `DeviceLocal/` and every class directory (repair it); a data
    /// directory that never was a device has no `DeviceLocal/` (adopt it).
    func identitylessError(_ root: String) -> DeviceError {
        let hasLocal = (try? directory.status(DeviceLayout.deviceLocal))?.kind == .directory
        if hasDeviceLayout && (hasLocal || !looksLikeDataDirectory) { return .identityMissing(root) }
        return looksLikeDataDirectory ? .notAdopted(root) : .notADevice(root)
    }

    var looksLikeDataDirectory: Bool {
        [ContainerKind.bundle.directory, ContainerKind.data.directory].contains {
            (try? directory.status($0))?.kind == .directory
        } || (try? directory.status(DeviceLayout.homeScreen))?.kind == .regular
    }

    /// Makes a device of the Simulator-shaped data directory `root`: every app (bundle containers with a
    /// data container), extension, App Group and the home screen are read and checked first, as every
    /// command will read them; then only `DeviceLocal/` (a new identity) is added. Refuses a device, a
    /// directory that does not look like a data directory, a malformed plist (named) and a file system
    /// without user xattrs; nothing is changed then. Returns the device and the apps it found.
    public static func adopt(_ root: String, now: Date) throws -> (device: Device, apps: [InstalledApp]) {
        let resolved = try RootPath.resolve(root)
        let device = Device(directory: try ContainedRoot(opening: resolved))
        if device.hasIdentity { throw DeviceError.notAdoptable(path: resolved, reason: "it is already a device") }
        guard device.looksLikeDataDirectory else {
            throw DeviceError.notAdoptable(
                path: resolved,
                reason: "it does not look like an iOS data directory (no Containers/Bundle/Application, "
                    + "Containers/Data/Application or Library/SpringBoard/IconState.plist)")
        }
        for kind in [ContainerKind.group, .plugin] { _ = try device.containers(kind) }
        let apps = try device.apps()
        _ = try device.homeScreen()
        try device.checkUserXattrs()
        try device.directory.makeDirectories(DeviceLayout.deviceLocal)
        let identity = DeviceIdentity.generate(now: now).plist
        try PropertyListFile.write(identity, to: DeviceLayout.identity, in: device.directory)
        return (device, apps)
    }
}
