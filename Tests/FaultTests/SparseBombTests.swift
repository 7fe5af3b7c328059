// SparseBombTests: a small archive whose sparse member claims a terabyte (holes cost nothing to store but must
// be hashed): verify and restore refuse it at once instead of hashing zeros for an hour. A fuzzer finding
// (verify hung on a pax sparse map with GNU.sparse.size = 2^40).
import BackupKit
import DeviceKit
import Foundation
import Glibc
import TestSupport
import Testing

@Suite struct SparseBombTests {
    /// A pax tar made by GNU tar holding a small sparse file, its logical size then raised to `size`.
    static func archive(in dir: String, size: Int) throws -> String {
        try FileManager.default.createDirectory(atPath: dir + "/src", withIntermediateDirectories: true)
        let fd = open(dir + "/src/disk.img", O_WRONLY | O_CREAT, 0o644)
        _ = pwrite(fd, "data", 4, 1 << 20)
        close(fd)
        let archive = dir + "/sparse.tar"
        let made = try Shell.run("tar", ["--format=pax", "--sparse", "-C", dir + "/src", "-cf", archive, "disk.img"])
        try #require(made.status == 0, "\(made.stderr)")
        var bytes = try FuzzSeeds.read(archive)
        let entry = try #require(TarLayout(bytes).entries.first)
        TarLayout.editPax(&bytes, entry) { records in
            for index in records.records.indices where records.records[index].key == "GNU.sparse.realsize" {
                records.records[index].value = Array(String(size).utf8)
            }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: archive))
        return archive
    }

    @Test func aTerabyteOfHolesIsRefusedAtOnce() throws {
        try withTemporaryDirectory { dir in
            let archive = try Self.archive(in: dir, size: 1 << 40)
            let start = Date()
            let report = try ArchiveVerification.verify(archive: archive)
            #expect(!report.isValid)
            #expect(report.problems.contains { $0.contains("sparse bomb") }, "\(report.problems)")
            let root = dir + "/phone"
            try Device.initialize(root)
            let before = try TreeSnapshot.take(root)
            var options = RestoreOptions()
            options.syncsBeforeMove = false
            let error = #expect(throws: RestoreError.self) {
                try ArchiveRestore.restore(archive: archive, root: root, options: options)
            }
            #expect("\(error!)".contains("disk.img"), "\(error!)")
            #expect(try TreeSnapshot.take(root) == before)
            #expect(Date().timeIntervalSince(start) < 10)
        }
    }

    @Test func holesBelowTheLimitAreHashedAndInterruptible() throws {
        try withTemporaryDirectory { dir in
            // 8 GiB of holes: within the limit, so verify hashes them, and SIGINT (here: a hook) stops it.
            let archive = try Self.archive(in: dir, size: 8 << 30)
            let start = Date()
            let report = try ArchiveVerification.verify(archive: archive) {
                Date().timeIntervalSince(start) > 0.5 ? SIGINT : nil
            }
            #expect(report.problems.contains { $0.contains("interrupted by SIGINT") }, "\(report.problems)")
            #expect(Date().timeIntervalSince(start) < 5)
        }
    }
}
