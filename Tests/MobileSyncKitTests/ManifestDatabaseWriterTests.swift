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
            #expect {
                try writer.insert(fileID: "a", domain: "HomeDomain", relativePath: "", kind: .directory, blob: [])
            } throws: { error in
                "\(error)".hasPrefix("cannot use backup/Manifest.db: UNIQUE constraint failed")
            }
        }
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
