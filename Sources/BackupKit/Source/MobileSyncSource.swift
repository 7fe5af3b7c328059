// MobileSyncSource: an open MobileSync backup directory: its plists and its Manifest.db rows, each checked.
import Glibc
import MobileSyncKit
import SystemKit

/// One MobileSync backup, opened for reading: the directory (by descriptor: every later open is relative to it,
/// `O_NOFOLLOW`), what its plists say (`BackupInfo`) and its index (`ManifestDatabaseReader`: read-only and
/// immutable, so nothing in the backup ever changes). A backup another tool decrypted (IsEncrypted, but an
/// SQLite Manifest.db) is read as a plain one, as mvt reads it.
final class MobileSyncSource {
    /// One checked row.
    struct Entry {
        let fileID: String
        let domain: String
        let record: BackupFileRecord
    }

    let path: String
    let directory: Int32
    let info: BackupInfo
    let database: ManifestDatabaseReader

    init(path: String) throws(MobileSyncReadError) {
        self.path = path
        directory = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw .open(path: path, SystemError("open", path: path)) }
        do {
            info = try BackupInfo.read(directory: directory, shown: path)
        } catch {
            close(directory)
            throw .properties(error)
        }
        do {
            database = try ManifestDatabaseReader(directory: directory, shown: "\(path)/Manifest.db")
        } catch {
            close(directory)
            if case .unreadable(_, .notSQLite) = error, info.isEncrypted { throw .encrypted(path: path) }
            throw .database(path: path, error)
        }
    }

    deinit {
        close(directory)
    }

    /// Each row in (domain, path) order: `entry` with the checked record, or `refused` with the row's domain, path
    /// and the reason. A failure to read the database throws `MobileSyncReadError`; what the closures throw
    /// passes through.
    func forEachRow(
        entry: (Entry) throws -> Void, refused: (String, String, PropertyListReadError) throws -> Void
    ) throws {
        do {
            try database.forEachRow { row in
                let checked = Result { () throws(PropertyListReadError) in try MobileSyncRowRules.check(row) }
                guard case .success(let record) = checked else {
                    if case .failure(let problem) = checked { try refused(row.domain, row.relativePath, problem) }
                    return
                }
                try entry(Entry(fileID: row.fileID, domain: row.domain, record: record))
            }
        } catch let error as MobileSyncError {
            throw MobileSyncReadError.database(path: path, error)
        }
    }
}
