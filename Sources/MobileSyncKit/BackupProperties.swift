// BackupProperties: Manifest.plist, Info.plist and Status.plist of one backup.
import Foundation
import PropertyListKit

/// The three property lists of a backup directory (reference §3), written binary. Manifest.plist is what the
/// device writes (keybag, encryption flag, Lockdown, apps); Info.plist what the host writes (device and app
/// list); Status.plist the snapshot's state, `finished` only once everything else is in place.
public struct BackupProperties: Sendable {
    /// The device, as Lockdown describes it.
    public struct DeviceDescription: Sendable {
        public var udid: String
        public var name: String
        public var productType: String
        public var productVersion: String
        public var buildVersion: String
        public var serialNumber: String

        public init(
            udid: String, name: String, productType: String, productVersion: String, buildVersion: String,
            serialNumber: String
        ) {
            self.udid = udid
            self.name = name
            self.productType = productType
            self.productVersion = productVersion
            self.buildVersion = buildVersion
            self.serialNumber = serialNumber
        }
    }

    /// One installed user app: Manifest.plist `Applications` and Info.plist `Installed Applications`.
    public struct Application: Sendable {
        public var bundleId: String
        public var version: String
        /// The device path of its `.app` bundle.
        public var path: String

        public init(bundleId: String, version: String, path: String) {
            self.bundleId = bundleId
            self.version = version
            self.path = path
        }
    }

    public var device: DeviceDescription
    public var applications: [Application]
    public var date: Date
    public var keyBag: BackupKeyBag
    /// The wrapped Manifest.db key (class 4, little-endian, then 40 bytes) of an encrypted backup.
    public var manifestKey: [UInt8]?
    /// The host's name and version (Info.plist `iTunes Version`).
    public var host: String

    public init(
        device: DeviceDescription, applications: [Application], date: Date, keyBag: BackupKeyBag,
        manifestKey: [UInt8]? = nil, host: String
    ) {
        self.device = device
        self.applications = applications
        self.date = date
        self.keyBag = keyBag
        self.manifestKey = manifestKey
        self.host = host
    }

    public func manifestPlist() -> [UInt8] {
        var root: [(String, PropertyListObject)] = [
            ("BackupKeyBag", .data(keyBag.encoded())),
            ("Lockdown", .dictionary([
                ("ProductVersion", .string(device.productVersion)),
                ("ProductType", .string(device.productType)),
                ("BuildVersion", .string(device.buildVersion)),
                ("UniqueDeviceID", .string(device.udid)),
                ("SerialNumber", .string(device.serialNumber)),
                ("DeviceName", .string(device.name)),
            ])),
            ("SystemDomainsVersion", .string("24.0")),
            ("Version", .string("10.0")),
            ("Date", .date(date)),
            ("IsEncrypted", .bool(manifestKey != nil)),
            ("WasPasscodeSet", .bool(false)),
            ("Applications", .dictionary(applications.map { app in
                (app.bundleId, .dictionary([
                    ("CFBundleIdentifier", .string(app.bundleId)),
                    ("CFBundleVersion", .string(app.version)),
                    ("ContainerContentClass", .string("Data/Application")),
                    ("Path", .string(app.path)),
                ]))
            })),
        ]
        if let manifestKey { root.append(("ManifestKey", .data(manifestKey))) }
        return BinaryPropertyListWriter.encode(.dictionary(root))
    }

    public func infoPlist() -> [UInt8] {
        BinaryPropertyListWriter.encode(.dictionary([
            ("Build Version", .string(device.buildVersion)),
            ("Device Name", .string(device.name)),
            ("Display Name", .string(device.name)),
            ("GUID", .string(Self.guid(device.udid))),
            ("IMEI", .string("")),
            ("Installed Applications", .array(applications.map { .string($0.bundleId) })),
            ("Last Backup Date", .date(date)),
            ("Product Name", .string("iPhone")),
            ("Product Type", .string(device.productType)),
            ("Product Version", .string(device.productVersion)),
            ("Serial Number", .string(device.serialNumber)),
            ("Target Identifier", .string(device.udid)),
            ("Target Type", .string("Device")),
            ("Unique Identifier", .string(device.udid.uppercased())),
            ("iTunes Version", .string(host)),
        ]))
    }

    /// `SnapshotState` `finished`: written last, it is what makes the directory a complete backup.
    public func statusPlist(uuid: String) -> [UInt8] {
        BinaryPropertyListWriter.encode(.dictionary([
            ("BackupState", .string("new")),
            ("Date", .date(date)),
            ("IsFullBackup", .bool(true)),
            ("SnapshotState", .string("finished")),
            ("UUID", .string(uuid.uppercased())),
            ("Version", .string("3.3")),
        ]))
    }

    /// idevicebackup2's GUID: 32 upper-case hex digits (here the UDID's letters and digits, padded or cut).
    static func guid(_ udid: String) -> String {
        let hex = udid.uppercased().filter { $0.isHexDigit }
        return String((hex + String(repeating: "0", count: 32)).prefix(32))
    }
}
