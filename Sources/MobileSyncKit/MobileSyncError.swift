// MobileSyncError: why a MobileSync piece could not be written, keeping the message and the cause apart.

import SystemKit

/// A failure of the MobileSync layer. Each case names the file and the library call; SQLite's own text is kept
/// as the cause. `description` is the message in the user's terms (the file, what is wrong).
public enum MobileSyncError: Error, CustomStringConvertible, Sendable {
    /// SQLite failed: `operation` (e.g. `sqlite3_step`), the database's path, SQLite's extended result code and
    /// its message.
    case database(path: String, operation: String, code: Int32, message: String)
    /// Manifest.db cannot be read at all: missing, not SQLite, beside a `-wal` file, or not a regular file.
    case unreadable(path: String, reason: ManifestDatabaseReader.OpenFailure)
    /// A system call on a file of the backup failed (writing Manifest.db).
    case file(SystemError)
    /// A libcrypto call failed (random bytes, a key derivation or a key wrap).
    case crypto(call: String)

    public var description: String {
        switch self {
        case .database(let path, _, _, let message):
            "cannot use \(path): \(message)"
        case .unreadable(let path, let reason):
            switch reason {
            case .missing: "\(path) is missing"
            case .notSQLite: "\(path) is not an SQLite database"
            case .writeAheadLog: "\(path) has a -wal file beside it (a backup's database is closed and checkpointed)"
            case .notRegular: "\(path) is not a regular file"
            }
        case .file(let error):
            "cannot write \(error.path): \(error.phrase)"
        case .crypto(let call):
            "the cryptographic library failed (\(call))"
        }
    }
}
