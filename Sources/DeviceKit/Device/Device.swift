// Device: a simulated iOS device root: identity, containers, apps, home screen.
import Foundation
import Glibc
import SystemKit

/// A device root on disk. Every lookup goes through the files (container metadata, Info.plists, the
/// home-screen layout): nothing is remembered between calls, as on iOS.
public struct Device: Sendable {
    /// The absolute path of the device root.
    public let root: String

    init(root: String) {
        self.root = Device.absolute(root)
    }

    /// Whether `root` holds a device identity.
    public static func isDevice(at root: String) -> Bool {
        (try? FileStatus.ifExists("\(absolute(root))/\(DeviceLayout.identity)")) != nil
    }

    /// Opens an existing device root; throws `DeviceError.notADevice` otherwise.
    public static func open(_ root: String) throws -> Device {
        try Device.refuseInterruptedRestore(at: root)
        let device = Device(root: root)
        guard isDevice(at: device.root) else {
            if try FileStatus.ifExists(device.root) == nil {
                throw SystemError("open", path: device.root, code: ENOENT)
            }
            throw DeviceError.notADevice(device.root)
        }
        return device
    }

    /// Creates a fresh device with a new random UDID at `root` (which must be absent or empty).
    @discardableResult
    public static func initialize(_ root: String, now: Date = Date()) throws -> Device {
        let device = Device(root: root)
        if isDevice(at: device.root) { throw DeviceError.notEmpty(device.root) }
        if let status = try FileStatus.ifExists(device.root) {
            guard status.kind == .directory else { throw DeviceError.notEmpty(device.root) }
            let entries = try FileManager.default.contentsOfDirectory(atPath: device.root)
            guard entries.isEmpty else { throw DeviceError.notEmpty(device.root) }
        }
        // Probe for user xattrs before building anything, and undo what was made on any failure:
        // a refused or failed init leaves the file system as it was.
        let created = try Device.missingDirectories(device.root)
        do {
            try AtomicFile.makeDirectories(device.root)
            try device.checkUserXattrs()
            for kind in ContainerKind.allCases {
                try AtomicFile.makeDirectories(device.path(kind.directory))
            }
            try AtomicFile.makeDirectories(device.path(AtomicFile.parent(of: DeviceLayout.homeScreen)))
            try PropertyListFile.write(DeviceIdentity.generate(now: now).plist, to: device.path(DeviceLayout.identity))
        } catch {
            device.removeSkeleton()
            for directory in created { rmdir(directory) }
            throw error
        }
        return device
    }

    /// `path` and its ancestors that do not exist yet, deepest first.
    private static func missingDirectories(_ path: String) throws -> [String] {
        var missing: [String] = []
        var current = path
        while current != "/" && current != "." && !current.isEmpty, try FileStatus.ifExists(current) == nil {
            missing.append(current)
            current = AtomicFile.parent(of: current)
        }
        return missing
    }

    /// Removes the (empty) skeleton directories `initialize` makes; anything holding files stays.
    private func removeSkeleton() {
        unlink(path(DeviceLayout.identity))
        var directories = ContainerKind.allCases.map(\.directory) + [
            AtomicFile.parent(of: DeviceLayout.homeScreen), DeviceLayout.deviceLocal,
        ]
        for directory in directories { rmdir(path(directory)) }
        directories = ["Containers/Bundle", "Containers/Data", "Containers/Shared", "Containers", "Library"]
        for directory in directories { rmdir(path(directory)) }
    }

    /// The device's identity from `DeviceLocal/identity.plist`.
    public func identity() throws -> DeviceIdentity {
        let file = path(DeviceLayout.identity)
        guard let plist = try PropertyListFile.readDictionary(file) else { throw DeviceError.notADevice(root) }
        return try DeviceIdentity(plist: plist, path: file)
    }

    /// The absolute path of `relative` inside the device root.
    public func path(_ relative: String) -> String {
        relative.isEmpty ? root : "\(root)/\(relative)"
    }

    /// True when the device was made by `init` and holds nothing yet: no containers, no files outside
    /// `DeviceLocal`, only the empty skeleton directories (and stale restore staging directories).
    public func isFresh() throws -> Bool {
        try isFresh(directory: root, relative: "")
    }

    private func isFresh(directory: String, relative: String) throws -> Bool {
        let entries: [String]
        do {
            entries = try FileManager.default.contentsOfDirectory(atPath: directory)
        } catch {
            throw SystemError("opendir", path: directory, code: EACCES)
        }
        for name in entries {
            let childRelative = relative.isEmpty ? name : "\(relative)/\(name)"
            if childRelative == DeviceLayout.deviceLocal || (relative.isEmpty && name.hasPrefix(".devicectl-restore-")) {
                continue
            }
            let status = try FileStatus.of("\(directory)/\(name)")
            guard status.kind == .directory else { return false }
            if ContainerKind.allCases.contains(where: { $0.directory == relative }) { return false }
            if try !isFresh(directory: "\(directory)/\(name)", relative: childRelative) { return false }
        }
        return true
    }

    /// Fails with `DeviceError.xattrsUnsupported` when the root's file system has no user xattrs.
    func checkUserXattrs() throws {
        let probe = "user.devicectl.probe"
        do {
            try ExtendedAttributes.set(probe, to: [1], at: root)
            try ExtendedAttributes.remove(probe, at: root)
        } catch {
            guard error.code == ENOTSUP || error.code == EOPNOTSUPP else { throw error }
            throw DeviceError.xattrsUnsupported(path: root)
        }
    }

    static func absolute(_ path: String) -> String {
        var url = URL(fileURLWithPath: path)
        url.standardize()
        var text = url.path
        while text.count > 1 && text.hasSuffix("/") { text.removeLast() }
        return text
    }
}
