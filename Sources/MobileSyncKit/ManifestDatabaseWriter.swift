// ManifestDatabaseWriter: Manifest.db written as a device writes it, in one transaction, closed with no sidecar.
import CSQLite
import Glibc
import SystemKit

/// Creates `Manifest.db` (reference §2.1): the phone's schema and header (page size 4096, incremental
/// auto-vacuum, `user_version` 2, WAL mode in bytes 18/19), one row per `insert`. Rows go in one transaction with
/// no rollback journal (a failed backup discards the whole directory), and `finish()` commits, switches the
/// file to WAL mode and closes it, which checkpoints and removes the `-wal` and `-shm` files: a single, closed
/// file is left. The secondary indexes are created with the table and kept up to date row by row, on the thread
/// that inserts (`ManifestRowWriter`), beside the backup's other threads: built once from the rows at the end they
/// cost less CPU (about 40 against 70 ms for the bench tree's 28,000 rows) but were the backup's last 40 ms, on one
/// core alone (alternating rounds on the bench tree: a plain backup 0.977x and 0.961x the time, an encrypted one
/// 0.950x and 0.975x; at 200,000 files 1.85 against 1.90 s and a peak RSS of 35 against 42 MiB, the sorter's).
/// Used on one thread.
public final class ManifestDatabaseWriter {
    private var database: OpaquePointer?
    private var insertStatement: OpaquePointer?
    /// The path given to SQLite (`/proc/self/fd/N/Manifest.db`: bound to the directory's descriptor).
    private let path: String
    /// The path messages name.
    private let shown: String

    /// Creates the database `Manifest.db` in the directory open as `directory` (borrowed), which must not hold
    /// one; `shown` names it in messages.
    public init(directory: Int32, shown: String) throws(MobileSyncError) {
        path = "/proc/self/fd/\(directory)/Manifest.db"
        self.shown = shown
        // SQLite would open an existing file (SQLITE_OPEN_EXCLUSIVE is not honoured by sqlite3_open_v2): the file
        // is created here, empty, with O_EXCL, and SQLite opens what this call made.
        let created = openat(directory, "Manifest.db", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard created >= 0 else {
            let code = errno
            throw .database(
                path: shown, operation: "openat", code: SQLITE_CANTOPEN, message: String(cString: strerror(code)))
        }
        try? FileDescriptor(rawValue: created, path: shown).close()  // empty, unwritten: SQLite opens it by name
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &database, flags, nil)
        guard status == SQLITE_OK else {
            let failure = failure("sqlite3_open_v2", status)
            sqlite3_close_v2(database)
            database = nil
            throw failure
        }
        sqlite3_extended_result_codes(database, 1)
        try execute("""
            PRAGMA page_size=4096; PRAGMA auto_vacuum=INCREMENTAL; PRAGMA user_version=2;
            PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-8192;
            BEGIN;
            CREATE TABLE Files (fileID TEXT PRIMARY KEY, domain TEXT, relativePath TEXT, flags INTEGER, file BLOB);
            CREATE INDEX FilesDomainIdx ON Files(domain);
            CREATE INDEX FilesRelativePathIdx ON Files(relativePath);
            CREATE INDEX FilesFlagsIdx ON Files(flags);
            """)
        let sql = "INSERT INTO Files (fileID, domain, relativePath, flags, file) VALUES (?1, ?2, ?3, ?4, ?5)"
        let prepared = sqlite3_prepare_v3(database, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &insertStatement, nil)
        guard prepared == SQLITE_OK else { throw failure("sqlite3_prepare_v3", prepared) }
    }

    deinit {
        sqlite3_finalize(insertStatement)
        sqlite3_close_v2(database)
    }

    /// Adds one row. A fileID already present fails (two entries would share one content file).
    public func insert(
        fileID: String, domain: String, relativePath: String, kind: BackupFileRecord.Kind, blob: [UInt8]
    ) throws(MobileSyncError) {
        let outcome = blob.withUnsafeBytes { bytes -> Result<Void, MobileSyncError> in
            Result { () throws(MobileSyncError) in
                try insert(fileID: fileID, domain: domain, relativePath: relativePath, kind: kind, blob: bytes)
            }
        }
        try outcome.get()
    }

    /// `insert` with the blob in place (an encoder's buffer: `KeyedRecordEncoder.withArchive`).
    public func insert(
        fileID: String, domain: String, relativePath: String, kind: BackupFileRecord.Kind, blob: UnsafeRawBufferPointer
    ) throws(MobileSyncError) {
        guard let statement = insertStatement else { throw closed("sqlite3_step") }
        // SQLITE_STATIC: SQLite reads the values in place, during the step, which runs inside these closures (a
        // copy of each value a row was a measurable part of the rows thread).
        var fileID = fileID, domain = domain, relativePath = relativePath
        let status = fileID.withUTF8 { id in
            domain.withUTF8 { domain in
                relativePath.withUTF8 { path in
                    Self.bindText(statement, 1, id)
                    Self.bindText(statement, 2, domain)
                    Self.bindText(statement, 3, path)
                    sqlite3_bind_int(statement, 4, Int32(kind.rawValue))
                    let bytes = blob.baseAddress ?? UnsafeRawPointer(Self.empty.utf8Start)
                    sqlite3_bind_blob(statement, 5, bytes, Int32(blob.count), nil)
                    let status = sqlite3_step(statement)
                    sqlite3_reset(statement)
                    sqlite3_clear_bindings(statement)
                    return status
                }
            }
        }
        guard status == SQLITE_DONE else { throw failure("sqlite3_step", status) }
    }

    /// A byte that stands for an empty value: SQLite binds NULL for a null pointer, and a domain root's
    /// `relativePath` is the empty string, not NULL.
    private static let empty: StaticString = ""

    /// Binds `text` without a copy (SQLITE_STATIC: a null destructor); valid until the statement is reset.
    private static func bindText(_ statement: OpaquePointer, _ index: Int32, _ text: UnsafeBufferPointer<UInt8>) {
        let pointer = UnsafeRawPointer(text.baseAddress) ?? UnsafeRawPointer(empty.utf8Start)
        sqlite3_bind_text(statement, index, pointer.assumingMemoryBound(to: CChar.self), Int32(text.count), nil)
    }

    /// The record blob of the row `fileID` written so far (a hard link's first name, in an encrypted backup: its
    /// copy takes the same key); nil when there is none.
    public func blob(fileID: String) throws(MobileSyncError) -> [UInt8]? {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(database, "SELECT file FROM Files WHERE fileID = ?1", -1, &statement, nil)
        guard prepared == SQLITE_OK else { throw failure("sqlite3_prepare_v2", prepared) }
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
        sqlite3_bind_text(statement, 1, fileID, -1, transient)
        let status = sqlite3_step(statement)
        guard status == SQLITE_ROW else {
            guard status == SQLITE_DONE else { throw failure("sqlite3_step", status) }
            return nil
        }
        let count = Int(sqlite3_column_bytes(statement, 0))
        guard count > 0, let pointer = sqlite3_column_blob(statement, 0) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Commits the rows, sets WAL mode and closes the database (checkpointed, no `-wal`/`-shm` left).
    public func finish() throws(MobileSyncError) {
        guard database != nil else { throw closed("sqlite3_close") }
        sqlite3_finalize(insertStatement)
        insertStatement = nil
        // Properties after the indexes, so the schema lists everything in the phone's order.
        try execute("""
            CREATE TABLE Properties (key TEXT PRIMARY KEY, value BLOB);
            COMMIT; PRAGMA journal_mode=WAL; PRAGMA wal_checkpoint(TRUNCATE);
            """)
        let status = sqlite3_close(database)
        guard status == SQLITE_OK else { throw failure("sqlite3_close", status) }
        database = nil
    }

    private func execute(_ sql: String) throws(MobileSyncError) {
        var message: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(database, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard status == SQLITE_OK else {
            throw .database(
                path: shown, operation: "sqlite3_exec", code: status,
                message: message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(status)))
        }
    }

    private func failure(_ operation: String, _ status: Int32) -> MobileSyncError {
        let message = database.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(status))
        return .database(path: shown, operation: operation, code: status, message: message)
    }

    private func closed(_ operation: String) -> MobileSyncError {
        .database(path: shown, operation: operation, code: SQLITE_MISUSE, message: "the database is closed")
    }
}
