// BackupInfo: what a backup directory's three plists say about it, read with caps from someone else's files.
import Foundation
import Glibc
import PropertyListKit
import SystemKit

/// The device, the apps and the state of a backup (reference §3), from Manifest.plist (required), Info.plist and
/// Status.plist (optional: mvt and iOSbackup differ on them; their absence is reported, not fatal). Each file is
/// opened by name in the backup's directory descriptor (`O_NOFOLLOW`, a regular file) and its size checked
/// before it is read.
public struct BackupInfo: Sendable {
    public struct Application: Sendable, Equatable {
        public let bundleId: String
        public let version: String?
        /// The device path of the `.app` (Manifest.plist `Path`), when given.
        public let path: String?
    }

    public var isEncrypted: Bool
    public var hasManifestKey: Bool { manifestKey != nil }
    /// `ManifestKey`: Manifest.db's class (little-endian) and wrapped key, in an encrypted backup from iOS 10.2.
    public var manifestKey: [UInt8]?
    /// `BackupKeyBag`, as stored.
    public var keyBag: [UInt8]?
    public var productVersion: String?
    public var productType: String?
    public var udid: String?
    public var deviceName: String?
    public var date: Date?
    /// Manifest.plist `Applications`, sorted by bundle id.
    public var applications: [Application]
    /// Info.plist `Installed Applications` (nil when Info.plist is missing).
    public var installedApplications: [String]?
    /// Status.plist `SnapshotState` (nil when Status.plist is missing).
    public var snapshotState: String?
    public var hasInfo: Bool
    public var hasStatus: Bool

    /// Caps, checked with `fstat` before reading: Info.plist can carry every app's icon and store metadata.
    public static let sizeLimits = ["Manifest.plist": 16 << 20, "Info.plist": 64 << 20, "Status.plist": 64 << 10]

    /// Why a plist of the backup could not be used.
    public struct Failure: Error, CustomStringConvertible, Sendable {
        public let file: String
        public let reason: String
        public var description: String { "\(file): \(reason)" }

        public init(file: String, reason: String) {
            self.file = file
            self.reason = reason
        }
    }

    /// Reads the plists in the directory open as `directory` (borrowed), named `shown` in messages.
    public static func read(directory: Int32, shown: String) throws(Failure) -> BackupInfo {
        guard let manifest = try plist("Manifest.plist", in: directory, shown: shown) else {
            throw Failure(file: "\(shown)/Manifest.plist", reason: "missing: this is not a MobileSync backup")
        }
        let info = try plist("Info.plist", in: directory, shown: shown)
        let status = try plist("Status.plist", in: directory, shown: shown)
        func fail(_ reason: String) -> Failure { Failure(file: "\(shown)/Manifest.plist", reason: reason) }
        guard manifest.pairs != nil else { throw fail("not a dictionary") }
        guard let encrypted = manifest["IsEncrypted"]?.bool ?? (manifest["IsEncrypted"] == nil ? false : nil) else {
            throw fail("IsEncrypted is not a boolean")
        }
        var applications: [Application] = []
        if let apps = manifest["Applications"] {
            guard let pairs = apps.pairs else { throw fail("Applications is not a dictionary") }
            for (bundleId, app) in pairs {
                applications.append(Application(
                    bundleId: bundleId, version: app["CFBundleVersion"]?.string, path: app["Path"]?.string))
            }
        }
        let lockdown = manifest["Lockdown"]
        var installed: [String]?
        if let list = info?["Installed Applications"] {
            guard let array = list.array else {
                throw Failure(file: "\(shown)/Info.plist", reason: "Installed Applications is not a list")
            }
            installed = array.compactMap(\.string)
        }
        return BackupInfo(
            isEncrypted: encrypted, manifestKey: manifest["ManifestKey"]?.data, keyBag: manifest["BackupKeyBag"]?.data,
            productVersion: lockdown?["ProductVersion"]?.string, productType: lockdown?["ProductType"]?.string,
            udid: lockdown?["UniqueDeviceID"]?.string, deviceName: lockdown?["DeviceName"]?.string,
            date: manifest["Date"]?.date, applications: applications.sorted { $0.bundleId < $1.bundleId },
            installedApplications: installed, snapshotState: status?["SnapshotState"]?.string, hasInfo: info != nil,
            hasStatus: status != nil)
    }

    /// The plist `name`, or nil when the directory has none.
    private static func plist(_ name: String, in directory: Int32, shown: String) throws(Failure) -> PropertyListObject? {
        let file = "\(shown)/\(name)"
        let opened = FileDescriptor(
            rawValue: openat(directory, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), path: file)
        guard opened.rawValue >= 0 else {
            let code = errno
            if code == ENOENT { return nil }
            throw Failure(file: file, reason: code == ELOOP ? "a symbolic link" : SystemError.phrase(code))
        }
        let fd = opened.rawValue
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw Failure(file: file, reason: "not a regular file")
        }
        let limit = sizeLimits[name] ?? (1 << 20)
        guard status.st_size <= limit else { throw Failure(file: file, reason: "larger than \(limit >> 10) KiB") }
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw Failure(file: file, reason: "cannot be read (it changed while it was read)") }
            done += n
        }
        do {
            return try PropertyListReader.read(bytes)
        } catch {
            throw Failure(file: file, reason: error.reason)
        }
    }
}
