// BackupExclusionScope: which backups an exclusion flag keeps a file out of (one attribute each).

/// The backups a flag set by `BackupExclusion.add` excludes from, each with its own attribute.
public enum BackupExclusionScope: String, CaseIterable, Sendable {
    /// Every engine (`isExcludedFromBackup`): `com_apple_backup_excludeItem`.
    case all
    /// iCloud backups only: `com_apple_cloudBackup_excludeItem`.
    case cloudOnly = "cloud-only"
    /// Unencrypted computer backups only: `com_apple_unencryptedBackup_excludeItem`.
    case unencryptedOnly = "unencrypted-only"

    /// The extended attribute (in Linux's `user.` namespace) that carries the flag.
    public var attribute: String {
        switch self {
        case .all: BackupExclusionAttribute.apple
        case .cloudOnly: BackupExclusionAttribute.cloudOnly
        case .unencryptedOnly: BackupExclusionAttribute.unencryptedOnly
        }
    }

    /// What the flag means, for messages: `excluded from backup`, `excluded from iCloud backups`.
    public var outcome: String {
        switch self {
        case .all: "excluded from backup"
        case .cloudOnly: "excluded from iCloud backups (engine icloud)"
        case .unencryptedOnly: "excluded from unencrypted computer backups (engine computer)"
        }
    }
}
