// ManifestDatabaseWriterTests: Manifest.db has the phone's schema and header, its rows, and nothing beside it.
import Foundation
import Glibc
import MobileSyncKit
import TestSupport
import Testing

@Suite struct ManifestDatabaseWriterTests {
    private func write(rows: Int, in directory: String) throws {
        let fd = open(directory, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        let writer = try ManifestDatabaseWriter(directory: fd, shown: "\(directory)/Manifest.db")
        for index in 0..<rows {
            let path = "Documents/file\(index)"
            let record = BackupFileRecord(
                kind: .file, relativePath: path, mode: 0o100644, userID: 501, groupID: 501, inode: UInt64(index),
                size: 1, birth: 0, lastModified: 0, lastStatusChange: 0, protectionClass: 3)
            try writer.insert(
                fileID: FileID.of(domain: "AppDomain-com.example.app", relativePath: path),
                domain: "AppDomain-com.example.app", relativePath: path, kind: .file, blob: record.archived())
        }
        try writer.finish()
    }

    @Test func theDatabaseHasThePhonesSchemaAndHeaderAndNoSidecar() throws {
        try withTemporaryDirectory { directory in
            try write(rows: 1000, in: directory)
            #expect(try directoryNames(in: directory) == ["Manifest.db"])
            let report = try PythonOracle.run("""
                import sqlite3, sys
                path = sys.argv[1]
                header = open(path, 'rb').read(100)
                db = sqlite3.connect('file:' + path + '?mode=ro&immutable=1', uri=True)
                print(int.from_bytes(header[16:18], 'big'), header[18], header[19])
                print(db.execute('PRAGMA user_version').fetchone()[0], db.execute('PRAGMA auto_vacuum').fetchone()[0])
                for (sql,) in db.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY rowid"): print(sql)
                print(db.execute('SELECT count(*), count(DISTINCT fileID), min(flags), max(flags) FROM Files').fetchone())
                """, arguments: ["\(directory)/Manifest.db"])
            #expect(report == """
                4096 2 2
                2 2
                CREATE TABLE Files (fileID TEXT PRIMARY KEY, domain TEXT, relativePath TEXT, flags INTEGER, file BLOB)
                CREATE INDEX FilesDomainIdx ON Files(domain)
                CREATE INDEX FilesRelativePathIdx ON Files(relativePath)
                CREATE INDEX FilesFlagsIdx ON Files(flags)
                CREATE TABLE Properties (key TEXT PRIMARY KEY, value BLOB)
                (1000, 1000, 1, 1)

                """)
        }
    }

    @Test func aRepeatedFileIDFailsNamingTheDatabase() throws {
        try withTemporaryDirectory { directory in
            let fd = open(directory, O_RDONLY | O_DIRECTORY)
            defer { close(fd) }
            let writer = try ManifestDatabaseWriter(directory: fd, shown: "backup/Manifest.db")
            try writer.insert(fileID: "a", domain: "HomeDomain", relativePath: "", kind: .directory, blob: [])
            try writer.insert(fileID: "b", domain: "HomeDomain", relativePath: "x", kind: .directory, blob: [])
            try writer.insert(fileID: "a", domain: "HomeDomain", relativePath: "", kind: .directory, blob: [])
            #expect {
                try writer.finish()
            } throws: { error in
                "\(error)".hasPrefix("cannot use backup/Manifest.db: UNIQUE constraint failed")
            }
        }
    }

    /// One row of the shape tests: what is inserted and what SQLite must read back.
    private struct Row {
        let fileID: String, domain: String, path: String, kind: BackupFileRecord.Kind, blob: [UInt8]
    }

    /// Writes `rows`, then has SQLite (Python's sqlite3) check the file (`PRAGMA integrity_check`: every page used
    /// once, the pointer map, cells in order, each index entry for each row) and print every row, each index's
    /// order and the header's page count against the file's size.
    private func writeAndRead(_ rows: [Row]) throws -> (expected: String, read: String) {
        try withTemporaryDirectory { directory in
            let fd = open(directory, O_RDONLY | O_DIRECTORY)
            defer { close(fd) }
            let writer = try ManifestDatabaseWriter(directory: fd, shown: "Manifest.db")
            for row in rows {
                try writer.insert(fileID: row.fileID, domain: row.domain, relativePath: row.path, kind: row.kind, blob: row.blob)
            }
            try writer.finish()
            #expect(try directoryNames(in: directory) == ["Manifest.db"])
            let read = try PythonOracle.run("""
                import sqlite3, sys, hashlib, os
                path = sys.argv[1]
                header = open(path, 'rb').read(100)
                pages = int.from_bytes(header[28:32], 'big')
                print('size', pages * 4096 == os.path.getsize(path), header[18], header[19], header[52:56].hex(), header[64:68].hex())
                db = sqlite3.connect('file:' + path + '?mode=ro&immutable=1', uri=True)
                print(db.execute('PRAGMA integrity_check').fetchall())
                for rowid, i, d, p, f, b in db.execute('SELECT rowid, fileID, domain, relativePath, flags, file FROM Files ORDER BY rowid'):
                    print(rowid, i, d, p, f, hashlib.sha1(b'-' + b).hexdigest())
                for name, column in [('sqlite_autoindex_Files_1', 'fileID'), ('FilesDomainIdx', 'domain'), ('FilesRelativePathIdx', 'relativePath'), ('FilesFlagsIdx', 'flags')]:
                    order = [r[0] for r in db.execute(f'SELECT rowid FROM Files INDEXED BY {name} ORDER BY {column}, rowid')]
                    expected = [r[0] for r in db.execute(f'SELECT rowid FROM Files NOT INDEXED ORDER BY {column}, rowid')]
                    print(name, order == expected, len(order))
                print(db.execute('SELECT count(*) FROM Properties').fetchone())
                """, arguments: ["\(directory)/Manifest.db"])
            var expected = "size True 2 2 00000009 00000001\n[('ok',)]\n"
            for (index, row) in rows.enumerated() {
                // The blobs are ASCII: FileID's SHA-1 of "-" and the blob.
                let digest = FileID.of(domain: "", relativePath: String(decoding: row.blob, as: UTF8.self))
                expected += "\(index + 1) \(row.fileID) \(row.domain) \(row.path) \(row.kind.rawValue) \(digest)\n"
            }
            for name in ["sqlite_autoindex_Files_1", "FilesDomainIdx", "FilesRelativePathIdx", "FilesFlagsIdx"] {
                expected += "\(name) True \(rows.count)\n"
            }
            expected += "(0,)\n"
            return (expected, read)
        }
    }

    /// `count` rows from `seed`: random fileIDs (hashes, in no order), a few domains, paths and blobs of the
    /// given lengths' range, every kind.
    private func rows(_ count: Int, seed: UInt64, paths: ClosedRange<Int>, blobs: ClosedRange<Int>) -> [Row] {
        var generator = SeededGenerator(seed: seed)
        let domains = ["HomeDomain", "AppDomain-com.example.news", "AppDomainGroup-group.example", "AppDomainPlugin-x"]
        let kinds: [BackupFileRecord.Kind] = [.file, .directory, .symlink]
        return (0..<count).map { index in
            let path = String((0..<Int.random(in: paths, using: &generator)).map { _ in
                "abcdefghijklmnopqrstuvwxyz/._-0123456789".randomElement(using: &generator)!
            })
            let blob = (0..<Int.random(in: blobs, using: &generator)).map { _ in UInt8.random(in: 0x20...0x7e, using: &generator) }
            return Row(
                fileID: FileID.of(domain: "d", relativePath: "\(seed)-\(index)"), domain: domains.randomElement(using: &generator)!,
                path: path, kind: kinds.randomElement(using: &generator)!, blob: blob)
        }
    }

    @Test(arguments: [
        // (rows, path lengths, blob lengths): no row; one row; one full leaf and one more; two table levels; three
        // index levels (long paths); blobs past a leaf's share (overflow chains, in the first leaf too); paths past
        // an index page's share (overflow from index leaves and interior cells); more pages than one pointer-map
        // page describes.
        (0, 0...0, 0...0), (1, 0...10, 0...10), (6, 10...20, 600...700), (3000, 20...60, 300...900),
        (4000, 200...400, 0...50), (40, 0...30, 3000...30000), (600, 900...5000, 0...100), (9000, 5...80, 400...800),
    ])
    func everyShapeIsADatabaseSQLiteChecksAndReadsBack(count: Int, paths: ClosedRange<Int>, blobs: ClosedRange<Int>) throws {
        let result = try writeAndRead(rows(count, seed: UInt64(count), paths: paths, blobs: blobs))
        #expect(result.read == result.expected)
    }

    /// fileIDs that are not hashes: many share their first eight bytes or more (which the fileID order's radix sort
    /// keys on), some are shorter than eight bytes or a prefix of another; the index must still be in SQLite's order.
    @Test func fileIDsSharingTheirFirstBytesAreOrderedByTheirWholeValue() throws {
        var generator = SeededGenerator(seed: 8)
        let starts = ["", "a", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghij0123", "zzzzzzzz", "~"]
        var seen: Set<String> = []
        var rows: [Row] = []
        while rows.count < 3000 {
            let tail = String(
                (0..<Int.random(in: 0...6, using: &generator)).map { _ in "ab~0Z".randomElement(using: &generator)! })
            let fileID = starts.randomElement(using: &generator)! + tail
            guard !fileID.isEmpty, seen.insert(fileID).inserted else { continue }
            rows.append(Row(fileID: fileID, domain: "HomeDomain", path: "p\(rows.count)", kind: .file, blob: []))
        }
        let result = try writeAndRead(rows)
        #expect(result.read == result.expected)
    }

    /// A database past 1 GiB: the page holding the byte at 2^30 (SQLite's lock byte) is never used, and the
    /// pointer map skips it as SQLite does.
    @Test func aDatabasePastOneGibibyteLeavesTheLockBytePageUnused() throws {
        let blob = (0..<28_000_000).map { UInt8(0x20 + $0 % 95) }
        let rows = (0..<40).map { index in
            Row(fileID: FileID.of(domain: "d", relativePath: "\(index)"), domain: "HomeDomain", path: "f\(index)",
                kind: .file, blob: blob)
        }
        let result = try writeAndRead(rows)
        #expect(result.read == result.expected)
    }

    @Test func anExistingDatabaseIsNeverOpened() throws {
        try withTemporaryDirectory { directory in
            _ = FileManager.default.createFile(atPath: "\(directory)/Manifest.db", contents: Data("x".utf8))
            let fd = open(directory, O_RDONLY | O_DIRECTORY)
            defer { close(fd) }
            #expect(throws: MobileSyncError.self) { try ManifestDatabaseWriter(directory: fd, shown: "Manifest.db") }
            let contents = try String(contentsOfFile: "\(directory)/Manifest.db", encoding: .utf8)
            #expect(contents == "x")
        }
    }
}
