// Device+Repair: a device root that lost its identity (`DeviceLocal/identity.plist`), found and repaired.
import Foundation
import Glibc
import SystemKit

extension Device {
    /// Whether the directory at `root` is laid out like a device (every container class directory and
    /// `Library/SpringBoard`) but has no identity: without one it would be treated as a plain directory
    /// (no iOS rules). False for anything that cannot be opened.
    public static func lacksIdentity(at root: String) -> Bool {
        guard let resolved = try? RootPath.resolve(root), let directory = try? ContainedRoot(opening: resolved) else {
            return false
        }
        let device = Device(directory: directory)
        return !device.hasIdentity && (device.hasDeviceLayout || device.looksLikeDataDirectory)
    }

    /// Every container class directory and `Library/SpringBoard` are directories here.
    var hasDeviceLayout: Bool {
        let needed = ContainerKind.allCases.map(\.directory) + [RootPath.parent(of: DeviceLayout.homeScreen)]
        return needed.allSatisfy { (try? directory.status($0))?.kind == .directory }
    }

    /// Gives the device at `root`, laid out like a device but without its identity, a new identity (a new
    /// random UDID: the old one is gone, as after an erase) and nothing else: its containers, home screen,
    /// notifications and event log stay. Refuses (`DeviceError.notRepairable`) a root that has an identity
    /// or is not laid out like a device, and a file system without user xattrs; nothing is changed then.
    public static func repairIdentity(_ root: String, now: Date) throws -> Device {
        let resolved = try RootPath.resolve(root)
        let device = Device(directory: try ContainedRoot(opening: resolved))
        if device.hasIdentity { throw DeviceError.notRepairable(path: resolved, reason: "it has an identity") }
        guard device.hasDeviceLayout else {
            throw DeviceError.notRepairable(
                path: resolved, reason: "it is not laid out like a device (Containers/... and Library/SpringBoard)")
        }
        try device.checkUserXattrs()
        try device.checkClock(now, source: "the repair time")
        try device.directory.makeDirectories(DeviceLayout.deviceLocal)
        let identity = DeviceIdentity.generate(now: now).plist
        try PropertyListFile.write(identity, to: DeviceLayout.identity, in: device.directory)
        return device
    }
}
