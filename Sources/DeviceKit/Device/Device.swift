// Device: a simulated iOS device root: identity, containers, apps, home screen.
import Foundation
import Glibc
import SystemKit

/// A device root on disk. Every lookup goes through the files (container metadata, Info.plists, the
/// home-screen layout): nothing is remembered between calls, as on iOS. Every file is reached through one
/// `ContainedRoot` opened on ROOT, so nothing a device's files say can lead outside it.
public struct Device: Sendable {
    /// The resolved absolute path of the device root (for messages).
    public let root: String
    /// The contained handle every read and write goes through.
    public let directory: ContainedRoot
    /// How `withLock` waits when another devicectl holds the device lock (default: silently, forever).
    public var lockWait = DeviceLockWait()
    /// The event log as last parsed through this handle (`EventLog`), shared by its copies.
    let eventLogCache = EventLogCache()

    init(directory: ContainedRoot) {
        self.root = directory.path
        self.directory = directory
    }

    /// Whether `root` holds a device identity.
    public static func isDevice(at root: String) -> Bool {
        guard let resolved = try? RootPath.resolve(root), let directory = try? ContainedRoot(opening: resolved) else {
            return false
        }
        return Device(directory: directory).hasIdentity
    }

    /// Whether this root holds a device identity file.
    var hasIdentity: Bool {
        (try? directory.status(DeviceLayout.identity)) != nil
    }

    /// Opens an existing device root; throws `DeviceError.notADevice` otherwise.
    public static func open(_ root: String) throws -> Device {
        let resolved = try RootPath.resolve(root)
        let opened = Result { () throws(SystemError) in try ContainedRoot(opening: resolved) }
        if case .failure(let error) = opened, error.code == ENOTDIR || error.code == ELOOP {
            throw DeviceError.notADevice(resolved)
        }
        let device = Device(directory: try opened.get())
        try device.refuseInterruptedRestore()
        guard device.hasIdentity else {
            throw device.identitylessError(resolved)
        }
        return device
    }

    /// A `Device` over an open tree without requiring a device identity there: a restore assembles the
    /// restored tree in a staging directory (the identity stays in the real ROOT's `DeviceLocal`) and
    /// reinstalls apps into it with `install`, which needs only the container directories.
    public static func assembling(in directory: ContainedRoot) -> Device {
        Device(directory: directory)
    }

    /// Creates a fresh device with a new random UDID at `root` (which must be absent or empty). ROOT is
    /// resolved as the shell means it (`RootPath.resolve`); its missing ancestors are created.
    @discardableResult
    public static func initialize(_ root: String, now: Date = Date()) throws -> Device {
        let resolved = try RootPath.resolve(root)
        if let status = try FileStatus.ifExists(resolved) {
            guard status.kind == .directory else { throw DeviceError.notEmpty(resolved) }
        }
        // Probe for user xattrs before building anything, and undo what was made on any failure:
        // a refused or failed init leaves the file system as it was.
        let created = try Device.missingDirectories(resolved)
        for directory in created.reversed() {
            if mkdir(directory, 0o755) != 0 && errno != EEXIST { throw SystemError("mkdir", path: directory) }
        }
        let device: Device
        do {
            device = try openEmpty(resolved)
        } catch {
            for directory in created { rmdir(directory) }
            throw error
        }
        do {
            try device.makeSkeleton(now: now)
        } catch {
            device.removeSkeleton()
            for directory in created { rmdir(directory) }
            throw error
        }
        return device
    }

    /// The empty directory `resolved`, opened; throws `DeviceError.notEmpty` for anything else.
    private static func openEmpty(_ resolved: String) throws -> Device {
        let device = Device(directory: try ContainedRoot(opening: resolved))
        if device.hasIdentity { throw DeviceError.notEmpty(resolved) }
        guard try device.directory.names("")?.isEmpty ?? false else { throw DeviceError.notEmpty(resolved) }
        return device
    }

    /// Builds the directories and identity of a new device in this (empty) root.
    func makeSkeleton(now: Date) throws {
        try checkUserXattrs()
        for kind in ContainerKind.allCases {
            try directory.makeDirectories(kind.directory)
        }
        try directory.makeDirectories(RootPath.parent(of: DeviceLayout.homeScreen))
        try PropertyListFile.write(DeviceIdentity.generate(now: now).plist, to: DeviceLayout.identity, in: directory)
    }

    /// `path` and its ancestors that do not exist yet, deepest first.
    private static func missingDirectories(_ path: String) throws -> [String] {
        var missing: [String] = []
        var current = path
        while current != "/" && !current.isEmpty, try FileStatus.ifExists(current) == nil {
            missing.append(current)
            current = RootPath.parent(of: current)
        }
        return missing
    }

    /// Removes the (empty) skeleton directories `initialize` makes; anything holding files stays.
    private func removeSkeleton() {
        try? directory.remove(DeviceLayout.identity)
        let directories =
            ContainerKind.allCases.map(\.directory) + [
                RootPath.parent(of: DeviceLayout.homeScreen), DeviceLayout.deviceLocal,
                "Containers/Bundle", "Containers/Data", "Containers/Shared", "Containers", "Library",
            ]
        for relative in directories {
            if (try? directory.names(relative))??.isEmpty == true { try? directory.remove(relative) }
        }
    }

    /// The device's identity from `DeviceLocal/identity.plist`.
    public func identity() throws -> DeviceIdentity {
        guard let plist = try PropertyListFile.readDictionary(DeviceLayout.identity, in: directory) else {
            throw DeviceError.notADevice(root)
        }
        return try DeviceIdentity(plist: plist, path: path(DeviceLayout.identity))
    }

    /// The absolute path of `relative` inside the device root, for messages: never open it.
    public func path(_ relative: String) -> String {
        directory.display(relative)
    }

    /// True when the device was made by `init` and holds nothing yet: no containers, no files outside
    /// `DeviceLocal`, only the empty skeleton directories (and stale restore staging directories).
    public func isFresh() throws -> Bool {
        try isFresh(relative: "")
    }

    private func isFresh(relative: String) throws -> Bool {
        guard let names = try directory.names(relative) else {
            throw SystemError("opendir", path: path(relative), code: ENOENT)
        }
        for bytes in names {
            let name = String(decoding: bytes, as: UTF8.self)
            guard Array(name.utf8) == bytes else { return false }
            let childRelative = relative.isEmpty ? name : "\(relative)/\(name)"
            if childRelative == DeviceLayout.deviceLocal || (relative.isEmpty && name.hasPrefix(".devicectl-restore-")) {
                continue
            }
            guard try directory.status(childRelative)?.kind == .directory else { return false }
            if ContainerKind.allCases.contains(where: { $0.directory == relative }) { return false }
            if try !isFresh(relative: childRelative) { return false }
        }
        return true
    }

    /// Fails with `DeviceError.xattrsUnsupported` when the root's file system has no user xattrs.
    func checkUserXattrs() throws {
        let probe = "user.devicectl.probe"
        do {
            try directory.setAttribute(probe, to: [1], at: "")
            try directory.removeAttribute(probe, at: "")
        } catch {
            guard error.code == ENOTSUP || error.code == EOPNOTSUPP else { throw error }
            throw DeviceError.xattrsUnsupported(path: root)
        }
    }
}
