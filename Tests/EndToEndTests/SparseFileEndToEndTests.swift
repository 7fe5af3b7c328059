// SparseFileEndToEndTests: a 500 MiB file holding 400 MiB of holes is stored as a GNU sparse 1.0 member of about
// its 100 MiB of data, and comes back sparse and byte-identical from devicectl restore, GNU tar and bsdtar; verify
// passes. A MobileSync backup, which has no holes, gets every byte of it (zeros in the holes).
import Foundation
import TestSupport
import Testing

@Suite struct SparseFileEndToEndTests {
    static let mib: UInt64 = 1 << 20
    static let app = "com.example.news"
    static let file = "Documents/disk.img"

    /// The app's data container in the device at `<dir>/phone`.
    static func documents(_ dir: String) throws -> String {
        try PhoneScratch(dir: dir).containerPath("Containers/Data/Application", app)
    }

    /// 20 data regions of 5 MiB, one every 25 MiB from 10 MiB on: holes at the start (10 MiB), between the regions
    /// (20 MiB each) and at the end (10 MiB), 400 MiB in all.
    static let layout: [(offset: UInt64, length: UInt64)] = (0..<20).map { ((10 + 25 * UInt64($0)) * mib, 5 * mib) }

    @Test func aFileWithHolesIsStoredByItsDataAndRestoredSparseByDevicectlGNUTarAndBsdtar() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            let original = try Self.documents(phone.dir) + "/" + Self.file
            try SparseFile.make(original, size: 500 * Self.mib, data: Self.layout)
            let allocated = try SparseFile.allocatedBytes(original)
            try #require(allocated <= 101 * Self.mib, "the file system keeps no holes: \(allocated) bytes allocated")
            let digest = try SparseFile.sha256(original)

            let archive = phone.dir + "/phone.tar"
            try phone.ok(["backup", phone.root, "-o", archive, "--no-progress", "-q"])
            // 100 MiB of data, a sparse map and the device's few files: well under the 500 MiB it holds (measured:
            // 104,908,800 bytes; stored dense, as before sparse members, it was over 524,288,000).
            let archiveSize = try FileManager.default.attributesOfItem(atPath: archive)[.size] as! UInt64
            #expect(archiveSize > 100 * Self.mib && archiveSize < 101 * Self.mib, "archive of \(archiveSize) bytes")
            let line = try TarTool.manifest(archive).first { ($0["path"] as? String)?.hasSuffix(Self.file) == true }
            #expect(line?["sha256"] as? String == digest && line?["size"] as? Int == Int(500 * Self.mib))

            let verify = try PhoneScratch.json(try phone.ok(["verify", archive, "--json"]))
            #expect(verify["ok"] as? Bool == true)

            let restoredDir = phone.dir + "/restored"
            try FileManager.default.createDirectory(atPath: restoredDir, withIntermediateDirectories: false)
            let restored = try PhoneScratch.json(try phone.ok(["restore", archive, restoredDir + "/phone", "--json"]))
            #expect(restored["verified"] as? Bool == true)
            let copies = [
                "devicectl restore": try Self.documents(restoredDir) + "/" + Self.file,
                "GNU tar": try Self.extract(archive, with: "tar", into: phone.dir + "/gnu"),
                "bsdtar": try Self.extract(archive, with: "bsdtar", into: phone.dir + "/bsd"),
            ]
            for (tool, copy) in copies {
                let status = try FileManager.default.attributesOfItem(atPath: copy)
                #expect(status[.size] as? UInt64 == 500 * Self.mib, "\(tool)")
                // du of the copy: its 100 MiB of data, not 500 MiB (measured on ext4: 104,861,696 bytes restored by
                // devicectl, 104,857,600 by GNU tar and by bsdtar).
                let used = try SparseFile.allocatedBytes(copy)
                #expect(used >= 100 * Self.mib && used < 110 * Self.mib, "\(tool): \(used) bytes allocated")
                #expect(try SparseFile.sha256(copy) == digest, "\(tool)")
            }
        }
    }

    /// Extracts `archive` with `tool` (which must say nothing) into `directory`; the sparse file's path there.
    static func extract(_ archive: String, with tool: String, into directory: String) throws -> String {
        try BackupCheck.extract(archive, into: directory, tool: tool)
        let member = try TarTool.members(archive, tool: tool).first { $0.hasSuffix(file) }
        return directory + "/" + (try #require(member))
    }

    @Test func aMobileSyncBackupGetsEveryByteOfAFileWithHoles() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            let original = try Self.documents(phone.dir) + "/" + Self.file
            try SparseFile.make(original, size: 8 * Self.mib, data: [(Self.mib, Self.mib), (5 * Self.mib, Self.mib)])
            let digest = try SparseFile.sha256(original)
            let backup = phone.dir + "/backup"
            try phone.ok(["backup", phone.root, "--format", "mobilesync", "-o", backup, "-q"])
            let report = try MobileSyncCheck.read(backup)
            #expect(report.problems == [])
            // The content file is the logical content, holes as zeros (MobileSyncCheck hashes it whole).
            let row = try #require(report.row("AppDomain-\(Self.app)", Self.file))
            #expect(row.size == Int(8 * Self.mib) && row.sha256 == digest)
            // And restores to the same bytes.
            let restoredDir = phone.dir + "/restored"
            try FileManager.default.createDirectory(atPath: restoredDir, withIntermediateDirectories: false)
            try phone.ok(["restore", backup, restoredDir + "/phone", "-q"])
            #expect(try SparseFile.sha256(try Self.documents(restoredDir) + "/" + Self.file) == digest)
        }
    }
}
