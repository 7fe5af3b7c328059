// ExclusionReason: why a backup skips a path, with the identifiers docs/FORMATS.md fixes.

/// One reason a backup skips a path. The raw values are the identifiers printed by `exclude check`,
/// `backup --dry-run` and recorded in the manifest's skipped totals.
public enum ExclusionReason: String, CaseIterable, Sendable, Codable, CustomStringConvertible {
    /// `user.com.apple.metadata:com_apple_backup_excludeItem` is present (Apple's `isExcludedFromBackup`):
    /// every engine, except under the device's own `Library/Preferences`.
    case appleExcludeXattr = "apple-exclude-xattr"
    /// `user.com.apple.MobileBackup` is 1 (iOS before 5.1): as `apple-exclude-xattr`.
    case mobileBackupXattr = "ios-mobilebackup-xattr"
    /// `user.com.apple.metadata:com_apple_cloudBackup_excludeItem` is present: the `icloud` engine only.
    case appleCloudExcludeXattr = "apple-cloud-exclude-xattr"
    /// `user.com.apple.metadata:com_apple_unencryptedBackup_excludeItem` is present: the `computer` engine only.
    case appleUnencryptedExcludeXattr = "apple-unencrypted-exclude-xattr"
    /// `user.xdg.robots.backup` is `false` (freedesktop.org).
    case xdgRobotsBackup = "xdg-robots-backup"
    /// The `nodump` inode flag (`chattr +d`).
    case nodump
    /// Inside `Containers/Bundle/Application` of a device root.
    case iosAppBundle = "ios-app-bundle"
    /// `Library/Caches` of a container (app data, App Group, extension data).
    case iosCaches = "ios-caches"
    /// `tmp` of a container (app data, App Group, extension data).
    case iosTmp = "ios-tmp"
    /// `SystemData` of a container (app data, App Group, extension data).
    case iosSystemData = "ios-systemdata"
    /// The device root's `DeviceLocal` directory.
    case deviceLocal = "device-local"
    /// A directory holding a valid `CACHEDIR.TAG`.
    case cachedirTag = "cachedir-tag"
    /// Matches an `--exclude` pattern.
    case pattern
    /// `exclude check` only: an ancestor is skipped, so the backup never reaches this path.
    case excludedAncestor = "excluded-ancestor"

    public var description: String { rawValue }

    /// The reason's bit in `ExclusionReasons`.
    var bit: UInt16 { 1 << UInt16(ExclusionReason.allCases.firstIndex(of: self)!) }
}

/// A set of exclusion reasons, cheap to compute per file on the backup's hot path.
public struct ExclusionReasons: OptionSet, Sendable, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public init(_ reason: ExclusionReason) { self.init(rawValue: reason.bit) }

    public static let appleExcludeXattr = ExclusionReasons(.appleExcludeXattr)
    public static let mobileBackupXattr = ExclusionReasons(.mobileBackupXattr)
    public static let appleCloudExcludeXattr = ExclusionReasons(.appleCloudExcludeXattr)
    public static let appleUnencryptedExcludeXattr = ExclusionReasons(.appleUnencryptedExcludeXattr)
    public static let xdgRobotsBackup = ExclusionReasons(.xdgRobotsBackup)
    public static let nodump = ExclusionReasons(.nodump)
    public static let iosAppBundle = ExclusionReasons(.iosAppBundle)
    public static let iosCaches = ExclusionReasons(.iosCaches)
    public static let iosTmp = ExclusionReasons(.iosTmp)
    public static let iosSystemData = ExclusionReasons(.iosSystemData)
    public static let deviceLocal = ExclusionReasons(.deviceLocal)
    public static let cachedirTag = ExclusionReasons(.cachedirTag)
    public static let pattern = ExclusionReasons(.pattern)
    public static let excludedAncestor = ExclusionReasons(.excludedAncestor)

    /// The attribute reasons every engine honours (outside the device's `Library/Preferences`).
    public static let generalAttributes: ExclusionReasons = [.appleExcludeXattr, .mobileBackupXattr]
    /// The attribute reasons only one engine honours.
    public static let engineSpecificAttributes: ExclusionReasons = [
        .appleCloudExcludeXattr, .appleUnencryptedExcludeXattr,
    ]

    /// The reasons a path alone gives (`ExclusionRules.pathReasons`): the device's path rules and `--exclude`.
    public static let pathOnly: ExclusionReasons = [
        .iosAppBundle, .iosCaches, .iosTmp, .iosSystemData, .deviceLocal, .pattern,
    ]

    /// The reasons in their canonical order (the order of `ExclusionReason.allCases`).
    public var reasons: [ExclusionReason] {
        ExclusionReason.allCases.filter { contains(ExclusionReasons($0)) }
    }

    /// The identifiers, comma separated, e.g. `nodump, ios-caches`.
    public var text: String { reasons.map(\.rawValue).joined(separator: ", ") }
}
