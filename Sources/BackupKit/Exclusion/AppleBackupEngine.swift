// AppleBackupEngine: which of Apple's backup engines a backup imitates (ios-device-layout.md §4.2).

/// The backup engine whose exclusion rules a backup applies, as BackupAgent2 distinguishes them
/// (`MBFileScanner`, `MBRestorePolicy`): the raw values are the `--engine` names and the manifest's
/// `engine` field. A manifest without the field (written before engines existed) reads as `icloud`.
public enum AppleBackupEngine: String, CaseIterable, Sendable, Codable, CustomStringConvertible {
    /// iCloud backup (CloudKit engine): honours the cloud-only attribute.
    case icloud
    /// An unencrypted Finder/iTunes backup (Drive engine): honours the unencrypted-only attribute.
    case computer
    /// An encrypted Finder/iTunes backup: neither engine-specific attribute.
    case computerEncrypted = "computer-encrypted"
    /// Quick Start device-to-device transfer: the general attribute only.
    case quickStart = "quick-start"

    /// The engine of a backup that names none.
    public static let `default` = AppleBackupEngine.icloud

    public var description: String { rawValue }

    /// `icloud|computer|computer-encrypted|quick-start`, for help and usage errors.
    public static var names: String { allCases.map(\.rawValue).joined(separator: "|") }

    /// The engine-specific attribute reasons this engine honours (the general ones apply to every engine).
    var engineSpecificReasons: ExclusionReasons {
        switch self {
        case .icloud: .appleCloudExcludeXattr
        case .computer: .appleUnencryptedExcludeXattr
        case .computerEncrypted, .quickStart: []
        }
    }
}
