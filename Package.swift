// swift-tools-version:6.0
// devicectl: back up, restore and migrate simulated iOS device roots on Linux.
import PackageDescription

let package = Package(
    name: "devicectl",
    products: [
        .executable(name: "devicectl", targets: ["devicectl"]),
        .library(name: "BackupKit", targets: ["BackupKit"]),
        .library(name: "DeviceKit", targets: ["DeviceKit"]),
        .library(name: "NudgeWidget", targets: ["NudgeWidget"]),
    ],
    targets: [
        // MARK: - C modules
        // libarchive, libzstd, liblzma and SQLite are loaded on first use (their Lazy.c), not at start-up: headers from
        // libarchive-dev, libzstd-dev, liblzma-dev and libsqlite3-dev, libraries from libarchive13, libzstd1,
        // liblzma5 and libsqlite3-0.
        .target(name: "CArchive", dependencies: ["CSupport"]),
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // zlib: restore, verify and list decode gzip themselves (libarchive skips the CRC-32 and trailing data).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // liblzma: xz decoded under a memory limit (the header from liblzma-dev; liblzma5 comes with libarchive13).
        .target(name: "CLzma", dependencies: ["CSupport"]),
        // libzstd: a zstd backup's independent frames (the header from libzstd-dev; libzstd1 comes with libarchive13).
        .target(name: "CZstd", dependencies: ["CSupport"]),
        // SQLite: a MobileSync backup's Manifest.db.
        .target(name: "CSQLite", dependencies: ["CSupport"]),
        .target(name: "CSupport"),
        // Intel's multi-buffer library (libipsec-mb1, amd64; header from libipsec-mb-dev), loaded if installed: an
        // encrypted MobileSync backup's small files, AES-256-CBC several at once.
        .target(name: "CMultiBuffer"),

        // MARK: - Libraries
        .target(name: "SystemKit", dependencies: ["CSupport"]),
        // The one property-list writer (binary), for the device's plists and the MobileSync format's.
        .target(name: "PropertyListKit"),
        .target(name: "DeviceKit", dependencies: ["SystemKit", "PropertyListKit", "CCrypto"]),
        // The tar layer: libarchive's reader and pax writer, the framing audit, decoders, member names.
        .target(name: "TarKit", dependencies: ["SystemKit", "CArchive", "CZlib", "CZstd", "CLzma"]),
        // The MobileSync layer (Finder/iTunes/idevicebackup2 backups): Manifest.db, MBFile records, binary plists,
        // the keybag; knows no device.
        .target(
            name: "MobileSyncKit", dependencies: ["SystemKit", "PropertyListKit", "CSQLite", "CCrypto", "CMultiBuffer"]),
        .target(
            name: "BackupKit",
            dependencies: ["DeviceKit", "SystemKit", "TarKit", "MobileSyncKit", "PropertyListKit", "CArchive", "CCrypto"]),
        .target(name: "NudgeWidget", dependencies: ["DeviceKit", "SystemKit"]),
        .target(
            name: "DevicectlCLI",
            dependencies: ["DeviceKit", "BackupKit", "TarKit", "MobileSyncKit", "NudgeWidget", "SystemKit"]),

        // MARK: - Executable
        .executableTarget(name: "devicectl", dependencies: ["DevicectlCLI"]),

        // MARK: - Tests
        .target(name: "TestSupport", dependencies: ["SystemKit", "DeviceKit", "CCrypto"], path: "Tests/TestSupport"),
        .testTarget(name: "SystemKitTests", dependencies: ["TestSupport", "SystemKit", "CSupport"]),
        .testTarget(
            name: "MobileSyncKitTests", dependencies: ["TestSupport", "MobileSyncKit", "PropertyListKit", "SystemKit"]),
        .testTarget(
            name: "DeviceKitTests", dependencies: ["TestSupport", "DeviceKit", "PropertyListKit", "SystemKit"]),
        .testTarget(
            name: "BackupKitTests",
            dependencies: ["TestSupport", "BackupKit", "TarKit", "DeviceKit", "SystemKit", "CArchive"]
        ),
        .testTarget(name: "NudgeWidgetTests", dependencies: ["TestSupport", "NudgeWidget", "DeviceKit", "SystemKit"]),
        .testTarget(name: "DevicectlCLITests", dependencies: ["TestSupport", "DevicectlCLI", "TarKit", "DeviceKit"]),
        .testTarget(name: "EndToEndTests", dependencies: ["devicectl", "TestSupport", "SystemKit", "DeviceKit"]),
        .testTarget(name: "ScenarioTests", dependencies: ["devicectl", "TestSupport", "SystemKit"]),
        // Faults (signals, full disks, locks, bad input) and the archive fuzzer: `make fuzz N=...` for long runs.
        .testTarget(
            name: "FaultTests",
            dependencies: [
                "devicectl", "TestSupport", "BackupKit", "TarKit", "DeviceKit", "SystemKit", "DevicectlCLI",
                "MobileSyncKit", "CSQLite",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Every Swift target sees only the members of the modules it imports itself (SE-0444), so a file compiles on
// its own imports, not on another file's.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}
