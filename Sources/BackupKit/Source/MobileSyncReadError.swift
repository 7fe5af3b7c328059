// MobileSyncReadError: why a MobileSync backup cannot be read at all, in the user's terms, with the cause kept.
import MobileSyncKit
import SystemKit

/// A backup directory that cannot be opened or whose index cannot be read. `description` names the backup and
/// says what is wrong; the cause stays typed.
public enum MobileSyncReadError: Error, CustomStringConvertible, Sendable {
    case open(path: String, SystemError)
    case properties(BackupInfo.Failure)
    case database(path: String, MobileSyncError)
    /// A row a restore would refuse (`entry` is its domain and path, escaped).
    case refusedRow(path: String, entry: String, reason: String)
    /// SIGINT or SIGTERM arrived.
    case interrupted(signal: Int32)
    /// Encrypted (IsEncrypted, and Manifest.db is not SQLite), and no password was given.
    case encrypted(path: String)
    /// The password does not unlock the backup's keybag.
    case wrongPassword(path: String)

    public var description: String {
        switch self {
        case .open(let path, let error):
            return "cannot open the backup \(path): \(error.phrase)"
        case .properties(let failure):
            return "\(failure.file) is unusable: \(failure.reason)"
        case .database(let path, let error):
            if case .unreadable(_, .notSQLite) = error {
                return "\(path)/Manifest.db is not an SQLite database, and Manifest.plist does not say the backup is "
                    + "encrypted: the backup is damaged"
            }
            return error.description
        case .refusedRow(let path, let entry, let reason):
            return entry.isEmpty ? "\(path) \(reason)" : "\(path): \(entry): \(reason)"
        case .interrupted(let signal):
            return "interrupted by \(ProcessSignals.name(of: signal))"
        case .encrypted(let path):
            return "\(path) is an encrypted backup: give its password with --password-file FILE or "
                + "DEVICECTL_BACKUP_PASSWORD (or run on a terminal to be asked)"
        case .wrongPassword(let path):
            return "wrong password for backup \(path)"
        }
    }
}
