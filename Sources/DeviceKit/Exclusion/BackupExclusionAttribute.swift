// BackupExclusionAttribute: the extended attributes that mark a file excluded from backup.

/// The exclusion flags devicectl reads and writes, with Apple's exact bytes.
public enum BackupExclusionAttribute {
    /// Apple's `isExcludedFromBackup` / `tmutil addexclusion`, in Linux's `user.` namespace.
    public static let apple = "user.com.apple.metadata:com_apple_backup_excludeItem"
    /// iOS 12+: excluded from iCloud backups only (`_kCFURLIsExcludedFromCloudBackupKey`, private).
    public static let cloudOnly = "user.com.apple.metadata:com_apple_cloudBackup_excludeItem"
    /// iOS 12+: excluded from unencrypted computer backups only (`_kCFURLIsExcludedFromUnencryptedBackupKey`).
    public static let unencryptedOnly = "user.com.apple.metadata:com_apple_unencryptedBackup_excludeItem"
    /// iOS before 5.1: `com.apple.MobileBackup` = 1.
    public static let legacyMobileBackup = "user.com.apple.MobileBackup"
    /// freedesktop.org: `user.xdg.robots.backup` = `false` excludes.
    public static let xdgRobotsBackup = "user.xdg.robots.backup"

    /// The value Apple writes: a binary plist holding the string `com.apple.backupd`. The engine-specific
    /// attributes get the same bytes: their value format is not documented, and BackupAgent2 asks
    /// CoreFoundation only whether the attribute is there (readers treat presence as the flag).
    public static let appleValue: [UInt8] = {
        let string = Array("com.apple.backupd".utf8)
        var bytes = Array("bplist00".utf8)
        bytes += [0x5F, 0x10, UInt8(string.count)] + string  // ASCII string, length as a 1-byte int
        let offsetTableOffset = bytes.count
        bytes.append(0x08)  // the object starts right after the 8-byte magic
        // Trailer: 6 unused, offset int size 1, object ref size 1, 1 object, top object 0, offset table offset.
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        bytes += [0, 0, 0, 0, 0, 0, 0, 1]
        bytes += [0, 0, 0, 0, 0, 0, 0, 0]
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(offsetTableOffset)]
        return bytes
    }()
}
