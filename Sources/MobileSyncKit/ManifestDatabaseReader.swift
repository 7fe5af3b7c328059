// ManifestDatabaseReader: a backup's Manifest.db read as someone else's file: read-only, immutable, row by row.
import CSQLite
import Glibc
import SystemKit

/// Reads `Manifest.db` from a backup directory without ever writing to it (reference §2.4): the file must be an
/// SQLite database (its header is checked first, so an encrypted one is told apart), it is opened read-only and
/// immutable (`file:…?mode=ro&immutable=1`: SQLite creates no `-wal`/`-shm` and takes no lock), through the
/// directory's descriptor (`/proc/self/fd/N/Manifest.db`), in defensive mode with untrusted schema. A `-wal` file
/// beside it is refused: its rows would be ignored. Rows come one at a time with the types checked; text and blobs
/// are capped by `sqlite3_limit`.
public final class ManifestDatabaseReader {
    /// One `Files` row as stored.
    public struct Row: Sendable {
        public let fileID: String
        public let domain: String
        public let relativePath: String
        public let flags: Int64
        public let blob: [UInt8]
    }

    private var database: OpaquePointer?
    private let shown: String
    /// The longest text or blob SQLite will hand over (a path or a record is far smaller).
    static let lengthLimit: Int32 = 1 << 20

    /// Why a database cannot be read.
    public enum OpenFailure: Error, Sendable, Equatable {
        /// No Manifest.db in the directory.
        case missing
        /// Present but not SQLite: an encrypted backup's database, or damage.
        case notSQLite
        /// A `Manifest.db-wal` file beside it.
        case writeAheadLog
        /// Not a regular file (a symlink, a directory, a FIFO ...).
        case notRegular
    }

    /// Opens `Manifest.db` in the directory open as `directory` (borrowed); `shown` names it in messages.
    public init(directory: Int32, shown: String) throws(MobileSyncError) {
        self.shown = shown
        var status = stat()
        if fstatat(directory, "Manifest.db-wal", &status, AT_SYMLINK_NOFOLLOW) == 0 {
            throw .unreadable(path: shown, reason: .writeAheadLog)
        }
        let opened = FileDescriptor(
            rawValue: openat(directory, "Manifest.db", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), path: shown)
        guard opened.rawValue >= 0 else {
            let code = errno
            if code == ENOENT { throw .unreadable(path: shown, reason: .missing) }
            if code == ELOOP { throw .unreadable(path: shown, reason: .notRegular) }
            throw .database(path: shown, operation: "openat", code: SQLITE_CANTOPEN, message: SystemError.phrase(code))
        }
        // Closed at the end of this initialiser: SQLite opens the file through it (`/proc/self/fd`) with its own.
        let fd = opened.rawValue
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw .unreadable(path: shown, reason: .notRegular)
        }
        database = try Self.open(fd, shown: shown)
    }

    /// Opens the database in the open unnamed file `descriptor` (borrowed: a decrypted copy made with `O_TMPFILE`)
    /// without ever giving it a name. SQLite's unix VFS opens by name with `O_NOFOLLOW`, so `/proc/self/fd/N` cannot
    /// reach such a file: it is opened through devicectl's descriptor VFS (`csqlite_register_descriptor_vfs`: reads
    /// with `pread`, writes nothing, opens nothing else), read-only and immutable, hardened. Nothing of the
    /// decrypted index is ever visible in the file system, even for a moment, even if the process is killed; SQLite's
    /// page cache stays as small as for a plain backup.
    public init(descriptor: Int32, shown: String) throws(MobileSyncError) {
        self.shown = shown
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw .unreadable(path: shown, reason: .notRegular)
        }
        guard Self.descriptorVFS == SQLITE_OK else {
            throw .database(
                path: shown, operation: "sqlite3_vfs_register", code: Self.descriptorVFS,
                message: String(cString: sqlite3_errstr(Self.descriptorVFS)))
        }
        database = try Self.open(descriptor, shown: shown, name: "devicectl-fd-\(descriptor)", vfs: "devicectl-descriptor")
    }

    /// The descriptor VFS, registered once (a lazy global: initialised exactly once, thread-safely).
    private static let descriptorVFS: Int32 = csqlite_register_descriptor_vfs()

    /// Checks that `fd` starts with the SQLite header (an encrypted Manifest.db does not).
    private static func checkHeader(_ fd: Int32, shown: String) throws(MobileSyncError) {
        var header = [UInt8](repeating: 0, count: 16)
        guard pread(fd, &header, 16, 0) == 16, header == Array("SQLite format 3".utf8) + [0] else {
            throw .unreadable(path: shown, reason: .notSQLite)
        }
    }

    /// Checks the SQLite header of `fd` and opens it (as `name` with `vfs`; by default through `/proc/self/fd` with
    /// SQLite's own) read-only and immutable, hardened.
    private static func open(
        _ fd: Int32, shown: String, name: String? = nil, vfs: String? = nil
    ) throws(MobileSyncError) -> OpaquePointer? {
        try checkHeader(fd, shown: shown)
        // The descriptor just checked, not the name: what SQLite opens is the file that was examined.
        var database: OpaquePointer?
        let path = "file:\(name ?? "/proc/self/fd/\(fd)")?mode=ro&immutable=1"
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX
        let opened = sqlite3_open_v2(path, &database, flags, vfs)
        guard opened == SQLITE_OK else {
            let message = database.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
                ?? String(cString: sqlite3_errstr(opened))
            sqlite3_close_v2(database)
            throw .database(path: shown, operation: "sqlite3_open_v2", code: opened, message: message)
        }
        harden(database)
        return database
    }

    /// Caps on what SQLite hands over or accepts, extended result codes, defensive mode and an untrusted schema.
    private static func harden(_ database: OpaquePointer?) {
        sqlite3_extended_result_codes(database, 1)
        sqlite3_limit(database, SQLITE_LIMIT_LENGTH, lengthLimit)
        sqlite3_limit(database, SQLITE_LIMIT_SQL_LENGTH, 1 << 16)
        sqlite3_limit(database, SQLITE_LIMIT_ATTACHED, 0)
        csqlite_harden(database)
    }

    deinit {
        sqlite3_close_v2(database)
    }

    /// Calls `body` with each `Files` row in (domain, relativePath) order. A value of the wrong type fails the read.
    public func forEachRow(_ body: (Row) throws -> Void) throws {
        let cursor = try rows()
        while let row = try cursor.next() { try body(row) }
    }

    /// The `Files` rows in (domain, relativePath) order, one at a time (`RowCursor`): a restore pulls them as it
    /// stages members.
    public func rows() throws(MobileSyncError) -> RowCursor {
        var statement: OpaquePointer?
        let sql = "SELECT fileID, domain, relativePath, flags, file FROM Files ORDER BY domain, relativePath"
        let prepared = sqlite3_prepare_v2(database, sql, -1, &statement, nil)
        guard prepared == SQLITE_OK else {
            sqlite3_finalize(statement)
            throw failure("sqlite3_prepare_v2", prepared)
        }
        return RowCursor(reader: self, statement: statement)
    }

    /// One pass over the rows: owns its prepared statement (finalized in `deinit`) and keeps its reader open.
    public final class RowCursor {
        private let reader: ManifestDatabaseReader
        private var statement: OpaquePointer?

        init(reader: ManifestDatabaseReader, statement: OpaquePointer?) {
            self.reader = reader
            self.statement = statement
        }

        deinit {
            sqlite3_finalize(statement)
        }

        /// The next row, or nil after the last. A value of the wrong type fails the read.
        public func next() throws(MobileSyncError) -> Row? {
            guard let statement else { return nil }
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE {
                sqlite3_finalize(statement)
                self.statement = nil
                return nil
            }
            guard status == SQLITE_ROW else { throw reader.failure("sqlite3_step", status) }
            guard sqlite3_column_type(statement, 0) == SQLITE_TEXT, sqlite3_column_type(statement, 1) == SQLITE_TEXT,
                sqlite3_column_type(statement, 2) == SQLITE_TEXT, sqlite3_column_type(statement, 3) == SQLITE_INTEGER,
                sqlite3_column_type(statement, 4) == SQLITE_BLOB
            else {
                throw MobileSyncError.database(
                    path: reader.shown, operation: "sqlite3_step", code: SQLITE_MISMATCH,
                    message: "a Files row has a value of the wrong type")
            }
            return Row(
                fileID: reader.text(statement, 0), domain: reader.text(statement, 1),
                relativePath: reader.text(statement, 2), flags: sqlite3_column_int64(statement, 3),
                blob: reader.blob(statement, 4))
        }
    }

    /// How many `Files` rows there are (for a progress display's total): one pass over the table's B-tree.
    public func rowCount() throws(MobileSyncError) -> UInt64 {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(database, "SELECT COUNT(*) FROM Files", -1, &statement, nil)
        guard prepared == SQLITE_OK else {
            sqlite3_finalize(statement)
            throw failure("sqlite3_prepare_v2", prepared)
        }
        defer { sqlite3_finalize(statement) }
        let status = sqlite3_step(statement)
        guard status == SQLITE_ROW else { throw failure("sqlite3_step", status) }
        return UInt64(max(0, sqlite3_column_int64(statement, 0)))
    }

    /// Whether a file row (flags 1) has `fileID`.
    public func hasFileRow(fileID: String) throws -> Bool {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(
            database, "SELECT 1 FROM Files WHERE fileID = ?1 AND flags = 1 LIMIT 1", -1, &statement, nil)
        guard prepared == SQLITE_OK else { throw failure("sqlite3_prepare_v2", prepared) }
        defer { sqlite3_finalize(statement) }
        let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
        sqlite3_bind_text(statement, 1, fileID, -1, transient)
        let status = sqlite3_step(statement)
        guard status == SQLITE_ROW || status == SQLITE_DONE else { throw failure("sqlite3_step", status) }
        return status == SQLITE_ROW
    }

    /// Text as stored (bytes that are not UTF-8 are kept as replacement characters and then fail the path checks).
    fileprivate func text(_ statement: OpaquePointer?, _ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    fileprivate func blob(_ statement: OpaquePointer?, _ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, column))
        guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    fileprivate func failure(_ operation: String, _ status: Int32) -> MobileSyncError {
        let message = database.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
            ?? String(cString: sqlite3_errstr(status))
        return .database(path: shown, operation: operation, code: status, message: message)
    }
}
