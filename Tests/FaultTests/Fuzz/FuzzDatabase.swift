// FuzzDatabase: a MobileSync fuzz case's Manifest.db opened read-write with SQLite, to rewrite rows and schema
// as a hostile backup would have them.
import CSQLite
import Foundation

/// A value bound into a row: SQLite keeps whatever type it is given, whatever the column says.
enum FuzzValue: CustomStringConvertible {
    case text([UInt8])
    case integer(Int64)
    case real(Double)
    case blob([UInt8])
    case null

    var description: String {
        switch self {
        case .text(let bytes):
            let shown = String(decoding: bytes.prefix(60), as: UTF8.self).debugDescription
            return bytes.count > 60 ? "text \(shown)... (\(bytes.count) bytes)" : "text \(shown)"
        case .integer(let value): return "integer \(value)"
        case .real(let value): return "real \(value)"
        case .blob(let bytes): return "blob of \(bytes.count) bytes"
        case .null: return "NULL"
        }
    }
}

/// One row of `Files`, as stored (before any rule is applied).
struct FuzzRow {
    let rowID: Int64
    let fileID: String
    let domain: String
    let relativePath: String
    let flags: Int64
    let file: [UInt8]
}

/// Manifest.db, opened read-write (never by the code under test, which opens it read-only and immutable).
final class FuzzDatabase {
    private var database: OpaquePointer?

    init(_ path: String) throws {
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            let message = database.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(database)
            throw FuzzSetupError("open \(path): \(message)")
        }
    }

    deinit {
        sqlite3_close(database)
    }

    /// Runs `sql`; false when SQLite refuses it (a schema change that does not apply to this database).
    @discardableResult
    func exec(_ sql: String) -> Bool {
        sqlite3_exec(database, sql, nil, nil, nil) == SQLITE_OK
    }

    /// The rows of `Files` in rowid order (none when the table is unreadable).
    func rows() -> [FuzzRow] {
        var statement: OpaquePointer?
        guard
            sqlite3_prepare_v2(
                database, "SELECT rowid, fileID, domain, relativePath, flags, file FROM Files ORDER BY rowid", -1,
                &statement, nil) == SQLITE_OK
        else { return [] }
        defer { sqlite3_finalize(statement) }
        var rows: [FuzzRow] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            func text(_ column: Int32) -> String {
                sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
            }
            let count = Int(sqlite3_column_bytes(statement, 5))
            let file = sqlite3_column_blob(statement, 5).map {
                Array(UnsafeRawBufferPointer(start: $0, count: count))
            } ?? []
            rows.append(FuzzRow(
                rowID: sqlite3_column_int64(statement, 0), fileID: text(1), domain: text(2), relativePath: text(3),
                flags: sqlite3_column_int64(statement, 4), file: file))
        }
        return rows
    }

    /// Sets `column` of the row `rowID` to `value`; false when SQLite refuses it (a unique fileID taken).
    @discardableResult
    func set(_ column: String, of rowID: Int64, to value: FuzzValue) -> Bool {
        run("UPDATE Files SET \(column) = ?1 WHERE rowid = \(rowID)", [value])
    }

    /// Inserts a row of the five values given (fileID, domain, relativePath, flags, file).
    @discardableResult
    func insert(_ values: [FuzzValue]) -> Bool {
        run("INSERT INTO Files (fileID, domain, relativePath, flags, file) VALUES (?1, ?2, ?3, ?4, ?5)", values)
    }

    /// Runs `sql` with `?N` for the Nth value. Numbers and NULL go in as SQL literals, text and blobs bound (only the
    /// functions devicectl's lazy SQLite loader forwards are called).
    private func run(_ sql: String, _ values: [FuzzValue]) -> Bool {
        var text = sql
        for (index, value) in values.enumerated().reversed() {
            let literal: String
            switch value {
            case .integer(let number): literal = String(number)
            case .real(let number): literal = String(number)
            case .null: literal = "NULL"
            case .text, .blob: continue
            }
            text = text.replacingOccurrences(of: "?\(index + 1)", with: literal)
        }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(database, text, -1, &statement, nil) == SQLITE_OK else { return false }
        defer { sqlite3_finalize(statement) }
        // SQLITE_TRANSIENT: SQLite copies the bytes before the call returns.
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            switch value {
            case .text(let bytes):
                // Never an empty buffer (its base address would be nil): the length says how many bytes count.
                _ = (bytes + [0]).withUnsafeBytes {
                    sqlite3_bind_text(
                        statement, position, $0.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(bytes.count),
                        transient)
                }
            case .blob(let bytes):
                _ = (bytes + [0]).withUnsafeBytes {
                    sqlite3_bind_blob(statement, position, $0.baseAddress!, Int32(bytes.count), transient)
                }
            case .integer, .real, .null: continue
            }
        }
        return sqlite3_step(statement) == SQLITE_DONE
    }
}
