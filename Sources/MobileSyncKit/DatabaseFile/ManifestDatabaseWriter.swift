// ManifestDatabaseWriter: Manifest.db written page by page as SQLite lays it out: the phone's schema and header.
import CSQLite
import Glibc
import SystemKit

/// Writes `Manifest.db` (reference §2.1) in SQLite's file format (sqlite.org/fileformat2.html) without SQLite: the
/// phone's schema and header (page size 4096, incremental auto-vacuum with its pointer map, `user_version` 2, WAL
/// mode in bytes 18/19), one `Files` row an `insert`, and its four indexes. Rows are appended to the table's leaf
/// pages as they come and the pages written as they fill; each row's indexed values are kept (`ManifestIndexKeys`)
/// and `finish()` writes the table's interior pages, each index from its values in order (`BTreeWriter`), the
/// empty `Properties` table and page 1, then closes the file: a single, closed file is left, as SQLite leaves it
/// after a checkpoint. Through SQLite, inserting each row into the table and four b-trees in arrival order (the
/// fileIDs are hashes) was the slowest thread of a MobileSync backup (about 85 ms of a 410 ms backup of the bench
/// tree). The tests check each database with SQLite's `PRAGMA integrity_check` and read it back through
/// SQLite. Used on one thread at a time.
public final class ManifestDatabaseWriter {
    /// Root pages, as SQLite numbers them in an auto-vacuum database (page 2 is the first pointer-map page).
    private enum Root {
        static let files: UInt32 = 3, fileIDs: UInt32 = 4, domains: UInt32 = 5, paths: UInt32 = 6, flags: UInt32 = 7
        static let properties: UInt32 = 8, propertyKeys: UInt32 = 9
    }

    private var file: FileDescriptor?
    private let shown: String
    private let pages: DatabasePages
    private let tree: BTreeWriter
    private var keys = ManifestIndexKeys()
    /// The table leaf being filled; its page number, nil for the first leaf until a second one is needed (a
    /// table of one leaf has it at the root page).
    private let leaf = PageBuffer()
    private var leafNumber: UInt32?
    /// Overflow chains begun in the first leaf before it had a number.
    private var unparentedOverflow: [UInt32] = []
    /// Full leaves written: page and last rowid.
    private var leaves: [(page: UInt32, lastRowid: Int64)] = []
    private var rowid: Int64 = 0
    /// A row's record, built before it is copied into its cell (its first `recordLength` bytes; the buffer only grows).
    private var record: [UInt8] = []
    private var recordLength = 0

    /// Creates the database `Manifest.db` in the directory open as `directory` (borrowed), which must not hold
    /// one; `shown` names it in messages.
    public init(directory: Int32, shown: String) throws(MobileSyncError) {
        self.shown = shown
        let created = openat(directory, "Manifest.db", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard created >= 0 else { throw .file(SystemError("openat", path: shown)) }
        file = FileDescriptor(rawValue: created, path: shown)
        pages = DatabasePages(descriptor: created, shown: shown)
        tree = BTreeWriter(pages: pages)
        _ = try pages.allocate()  // page 1
        for _ in Root.files...Root.propertyKeys { _ = try pages.allocate() }
        leaf.start(.tableLeaf)
    }

    /// Adds one row. A fileID already present fails `finish()` (two entries would share one content file).
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
        guard file != nil else { throw closed() }
        rowid += 1
        var fileID = fileID, domainText = domain, relativePath = relativePath
        let flags = Int64(kind.rawValue)
        fileID.withUTF8 { id in
            domainText.withUTF8 { domainBytes in
                relativePath.withUTF8 { path in
                    let columns: [RecordFormat.Column] = [
                        .text(UnsafeRawBufferPointer(id)), .text(UnsafeRawBufferPointer(domainBytes)),
                        .text(UnsafeRawBufferPointer(path)), .integer(flags), .blob(blob),
                    ]
                    recordLength = RecordFormat.length(of: columns)
                    if record.count < recordLength {
                        record = [UInt8](repeating: 0, count: max(recordLength, 2 * record.count))
                    }
                    record.withUnsafeMutableBytes { _ = RecordFormat.write(columns, at: $0.baseAddress!) }
                    keys.add(
                        fileID: UnsafeRawBufferPointer(id), domain: domain, relativePath: UnsafeRawBufferPointer(path),
                        flags: UInt8(kind.rawValue))
                }
            }
        }
        let length = recordLength
        try record.withUnsafeBytes { buffer in
            Result { () throws(MobileSyncError) in try append(UnsafeRawBufferPointer(rebasing: buffer[0..<length])) }
        }.get()
    }

    /// Appends the row `rowid` of `payload` to the table's leaves.
    private func append(_ payload: UnsafeRawBufferPointer) throws(MobileSyncError) {
        let local = BTreeWriter.localLength(payload: payload.count, maxLocal: BTreeWriter.maxLocalTableLeaf)
        let length = RecordFormat.varintLength(UInt64(payload.count)) + RecordFormat.varintLength(UInt64(rowid))
            + local + (local < payload.count ? 4 : 0)
        if !leaf.fits(length) {
            try writeLeaf()
            leaf.start(.tableLeaf)
            leafNumber = try pages.allocate()
        }
        let cell = leaf.addCell(length)
        var offset = RecordFormat.putVarint(UInt64(payload.count), at: cell)
        offset += RecordFormat.putVarint(UInt64(rowid), at: cell + offset)
        if local > 0 { (cell + offset).copyMemory(from: payload.baseAddress!, byteCount: local) }
        if local < payload.count {
            let first = try tree.overflow(payload, from: local, parent: leafNumber ?? 0)
            if leafNumber == nil { unparentedOverflow.append(first) }
            RecordFormat.putUInt32(first, at: cell + offset + local)
        }
    }

    /// Writes the full leaf (the first one given its number now).
    private func writeLeaf() throws(MobileSyncError) {
        let number: UInt32
        if let leafNumber {
            number = leafNumber
        } else {
            number = try pages.allocate()
            adoptOverflow(by: number)
        }
        leaf.seal()
        try pages.write(number, UnsafeRawBufferPointer(leaf.bytes))
        leaves.append((number, rowid - 1))
    }

    private func adoptOverflow(by page: UInt32) {
        for first in unparentedOverflow { pages.point(first, .overflowFirst, parent: page) }
        unparentedOverflow.removeAll()
    }

    /// Writes the table's interior pages, the indexes, the schema and the header; closes the file.
    public func finish() throws(MobileSyncError) {
        guard let file = file.take() else { throw closed() }
        // The last leaf: the root itself when it is the only one.
        leaf.seal()
        if leaves.isEmpty {
            adoptOverflow(by: Root.files)
            pages.point(Root.files, .root, parent: 0)
            try pages.write(Root.files, UnsafeRawBufferPointer(leaf.bytes))
        } else {
            try pages.write(leafNumber!, UnsafeRawBufferPointer(leaf.bytes))
            leaves.append((leafNumber!, rowid))
            try tree.writeTableInterior(leaves: leaves, root: Root.files)
        }
        try writeIndexes()
        for (root, kind) in [(Root.properties, PageBuffer.Kind.tableLeaf), (Root.propertyKeys, .indexLeaf)] {
            leaf.start(kind)
            leaf.seal()
            pages.point(root, .root, parent: 0)
            try pages.write(root, UnsafeRawBufferPointer(leaf.bytes))
        }
        try writeFirstPage()
        try pages.finish()
        do { try file.close() } catch { throw .file(error) }
    }

    /// Writes the four indexes. The domain and relativePath orders (a sort of every path) are made on a second
    /// thread while the fileID and flags indexes are written here; pages are written on this thread alone, in one
    /// order, so the file is the same either way.
    private func writeIndexes() throws(MobileSyncError) {
        let shared = SharedKeys(keys)
        let other = OtherOrders()
        let sortOthers: @Sendable () -> Void = {
            other.domains = shared.keys.domainOrder()
            other.paths = shared.keys.relativePathOrder()
        }
        var worker: WorkerThread? = try? WorkerThread(sortOthers)
        defer { worker.take()?.join() }
        let fileIDs = keys.fileIDOrder()
        for (previous, next) in zip(fileIDs, fileIDs.dropFirst()) where keys.sameFileID(Int(previous), Int(next)) {
            let id = keys.withValue(.fileID, Int(next)) { String(decoding: $0, as: UTF8.self) }
            throw .database(
                path: shown, operation: "insert", code: 1555,  // SQLITE_CONSTRAINT_PRIMARYKEY
                message: "UNIQUE constraint failed: Files.fileID (two rows have the fileID \(id))")
        }
        try tree.writeIndex(IndexEntries(order: fileIDs, keys: keys, column: .fileID), root: Root.fileIDs)
        try tree.writeIndex(IndexEntries(order: keys.flagsOrder(), keys: keys, column: .flags), root: Root.flags)
        if let started = worker.take() { started.join() } else { sortOthers() }
        try tree.writeIndex(IndexEntries(order: other.domains, keys: keys, column: .domain), root: Root.domains)
        try tree.writeIndex(IndexEntries(order: other.paths, keys: keys, column: .relativePath), root: Root.paths)
    }

    /// The keys, read by the index thread while this one reads them too (no one changes them then).
    private final class SharedKeys: @unchecked Sendable {
        let keys: ManifestIndexKeys
        init(_ keys: ManifestIndexKeys) { self.keys = keys }
    }

    /// The orders the index thread makes, read once it is joined.
    private final class OtherOrders: @unchecked Sendable {
        var domains: [Int32] = []
        var paths: [Int32] = []
    }

    /// The schema, as SQLite records it for these statements, in the phone's order.
    private static let schema: [(type: String, name: String, table: String, root: UInt32, sql: String?)] = [
        ("table", "Files", "Files", Root.files,
         "CREATE TABLE Files (fileID TEXT PRIMARY KEY, domain TEXT, relativePath TEXT, flags INTEGER, file BLOB)"),
        ("index", "sqlite_autoindex_Files_1", "Files", Root.fileIDs, nil),
        ("index", "FilesDomainIdx", "Files", Root.domains, "CREATE INDEX FilesDomainIdx ON Files(domain)"),
        ("index", "FilesRelativePathIdx", "Files", Root.paths,
         "CREATE INDEX FilesRelativePathIdx ON Files(relativePath)"),
        ("index", "FilesFlagsIdx", "Files", Root.flags, "CREATE INDEX FilesFlagsIdx ON Files(flags)"),
        ("table", "Properties", "Properties", Root.properties,
         "CREATE TABLE Properties (key TEXT PRIMARY KEY, value BLOB)"),
        ("index", "sqlite_autoindex_Properties_1", "Properties", Root.propertyKeys, nil),
    ]

    /// Page 1: the database header, then the schema table's only leaf.
    private func writeFirstPage() throws(MobileSyncError) {
        leaf.clear()
        let header = leaf.bytes.baseAddress!
        for (offset, byte) in "SQLite format 3".utf8.enumerated() { leaf.bytes[offset] = byte }
        header.storeBytes(of: UInt16(DatabasePages.size).bigEndian, toByteOffset: 16, as: UInt16.self)
        leaf.bytes[18] = 2  // WAL mode, as a device leaves it
        leaf.bytes[19] = 2
        leaf.bytes[21] = 64  // payload fractions (fixed)
        leaf.bytes[22] = 32
        leaf.bytes[23] = 32
        let fields: [(Int, UInt32)] = [
            (24, 1), (28, pages.count), (40, 1), (44, 4), (52, Root.propertyKeys), (56, 1), (60, 2), (64, 1),
            (92, 1), (96, UInt32(SQLITE_VERSION_NUMBER)),
        ]
        for (offset, value) in fields { RecordFormat.putUInt32(value, at: header + offset) }
        leaf.start(.tableLeaf, headerOffset: 100)
        for (index, entry) in Self.schema.enumerated() {
            var type = entry.type, name = entry.name, table = entry.table
            let root = Int64(entry.root)
            var sql = entry.sql
            type.withUTF8 { type in name.withUTF8 { name in table.withUTF8 { table in
                func add(_ sqlColumn: RecordFormat.Column) {
                    let columns: [RecordFormat.Column] = [
                        .text(UnsafeRawBufferPointer(type)), .text(UnsafeRawBufferPointer(name)),
                        .text(UnsafeRawBufferPointer(table)), .integer(root), sqlColumn,
                    ]
                    let length = RecordFormat.length(of: columns)
                    let rowid = UInt64(index + 1)
                    let prefix = RecordFormat.varintLength(UInt64(length)) + RecordFormat.varintLength(rowid)
                    let cell = leaf.addCell(prefix + length)
                    var offset = RecordFormat.putVarint(UInt64(length), at: cell)
                    offset += RecordFormat.putVarint(rowid, at: cell + offset)
                    RecordFormat.write(columns, at: cell + offset)
                }
                if sql == nil { add(.null) } else { sql!.withUTF8 { add(.text(UnsafeRawBufferPointer($0))) } }
            } } }
        }
        leaf.seal()
        try pages.write(1, UnsafeRawBufferPointer(leaf.bytes))
    }

    private func closed() -> MobileSyncError {
        .database(path: shown, operation: "insert", code: SQLITE_MISUSE, message: "the database is closed")
    }
}
