// ExclusionAttributes: how the values of the exclusion xattrs are read (one place for backup and check).
import DeviceKit

/// Interprets the extended attributes that exclude a file from backup.
public enum ExclusionAttributes {
    /// The attribute names, as C-comparable bytes.
    static let appleName = Array(BackupExclusionAttribute.apple.utf8)
    static let cloudOnlyName = Array(BackupExclusionAttribute.cloudOnly.utf8)
    static let unencryptedOnlyName = Array(BackupExclusionAttribute.unencryptedOnly.utf8)
    static let mobileBackupName = Array(BackupExclusionAttribute.legacyMobileBackup.utf8)
    static let xdgName = Array(BackupExclusionAttribute.xdgRobotsBackup.utf8)

    /// `com.apple.MobileBackup` excludes when it is 1: the byte 0x01 (as iOS wrote it) or the text `1`
    /// (as `setfattr -v 1` writes it), ignoring trailing NULs and whitespace.
    public static func mobileBackupExcludes(_ value: UnsafeRawBufferPointer) -> Bool {
        let bytes = trimmed(value)
        guard bytes.count == 1 else { return false }
        return bytes[0] == 0x01 || bytes[0] == UInt8(ascii: "1")
    }

    /// `user.xdg.robots.backup` excludes when it is `false` (case-insensitive; trailing NULs and
    /// whitespace ignored). Any other value, e.g. `true`, leaves the file in the backup.
    public static func xdgExcludes(_ value: UnsafeRawBufferPointer) -> Bool {
        let bytes = trimmed(value)
        let word = Array("false".utf8)
        guard bytes.count == word.count else { return false }
        for (byte, expected) in zip(bytes, word) where byte | 0x20 != expected { return false }
        return true
    }

    /// The value without trailing NULs, spaces or newlines.
    private static func trimmed(_ value: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer.SubSequence {
        var end = value.count
        while end > 0, [0, 0x20, 0x0A, 0x0D, 0x09].contains(value[end - 1]) { end -= 1 }
        return value[0..<end]
    }
}
