// BackupExclusion: setting and clearing Apple's exclusion flag, like `tmutil addexclusion`.
import Glibc
import SystemKit

/// Marks files excluded from backup the way iOS and macOS do (the xattr with Apple's exact bytes).
public enum BackupExclusion {
    /// The flags `remove` clears: Apple's three (general, cloud-only, unencrypted-only), the legacy iOS one
    /// and xdg's.
    static let clearedNames = [
        BackupExclusionAttribute.apple, BackupExclusionAttribute.cloudOnly, BackupExclusionAttribute.unencryptedOnly,
        BackupExclusionAttribute.legacyMobileBackup, BackupExclusionAttribute.xdgRobotsBackup,
    ]

    /// Sets the flag of `scope` (by default `user.com.apple.metadata:com_apple_backup_excludeItem`) on
    /// `relative` beneath the device root.
    public static func add(
        _ relative: String, in directory: ContainedRoot, scope: BackupExclusionScope = .all
    ) throws {
        try add(try directory.open(relative, flags: FileDescriptor.locateOnly), scope: scope)
    }

    /// Sets the flag of `scope` on `path`, a file the user named (not followed when it is a symlink).
    public static func add(_ path: String, scope: BackupExclusionScope = .all) throws {
        try add(try FileDescriptor.open(path, flags: FileDescriptor.locateOnly), scope: scope)
    }

    /// Clears every exclusion flag (Apple's three, the legacy iOS and xdg flags) from `path`, a file the user
    /// named; a path without them is left as it is. Returns the names of the flags that were there (empty:
    /// nothing to clear).
    @discardableResult
    public static func remove(_ path: String) throws -> [String] {
        try remove(try FileDescriptor.open(path, flags: FileDescriptor.locateOnly))
    }

    /// Clears the flags from the file `file` (opened `FileDescriptor.locateOnly`, e.g. by a name that is not
    /// UTF-8); `file.path` names it in errors. Returns the names of the flags that were there.
    @discardableResult
    public static func remove(_ file: borrowing FileDescriptor) throws -> [String] {
        let path = file.path
        var cleared: [String] = []
        for name in clearedNames {
            do {
                if try ExtendedAttributes.value(name, of: file) != nil { cleared.append(name) }
                try ExtendedAttributes.remove(name, from: file)
            } catch {
                if error.code == ENOTSUP || error.code == EOPNOTSUPP { throw DeviceError.xattrsUnsupported(path: path) }
                throw error
            }
        }
        return cleared
    }

    /// Sets the flag of `scope` on the file `file` (opened `FileDescriptor.locateOnly`, e.g. by a name that is not
    /// UTF-8).
    public static func add(_ file: borrowing FileDescriptor, scope: BackupExclusionScope = .all) throws {
        do {
            try ExtendedAttributes.set(scope.attribute, to: BackupExclusionAttribute.appleValue, on: file)
        } catch {
            if error.code == ENOTSUP || error.code == EOPNOTSUPP { throw DeviceError.xattrsUnsupported(path: file.path) }
            throw error
        }
    }
}
