// BackupExclusion: setting and clearing Apple's exclusion flag, like `tmutil addexclusion`.
import Glibc
import SystemKit

/// Marks files excluded from backup the way iOS and macOS do (the xattr with Apple's exact bytes).
public enum BackupExclusion {
    /// Sets `user.com.apple.metadata:com_apple_backup_excludeItem` on `path`.
    public static func add(_ path: String) throws {
        do {
            try ExtendedAttributes.set(BackupExclusionAttribute.apple, to: BackupExclusionAttribute.appleValue, at: path)
        } catch {
            if error.code == ENOTSUP || error.code == EOPNOTSUPP { throw DeviceError.xattrsUnsupported(path: path) }
            throw error
        }
    }

    /// Clears the flag (the legacy iOS and xdg flags too); a path without them is left as it is.
    public static func remove(_ path: String) throws {
        _ = try FileStatus.of(path)
        let names = [
            BackupExclusionAttribute.apple, BackupExclusionAttribute.legacyMobileBackup,
            BackupExclusionAttribute.xdgRobotsBackup,
        ]
        for name in names {
            do {
                try ExtendedAttributes.remove(name, at: path)
            } catch {
                if error.code == ENOTSUP || error.code == EOPNOTSUPP { throw DeviceError.xattrsUnsupported(path: path) }
                throw error
            }
        }
    }
}
