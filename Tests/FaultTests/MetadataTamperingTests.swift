// MetadataTamperingTests: a real backup whose headers are rewritten with a valid checksum (so no tar reader
// notices) must fail verify and restore: the manifest's members line covers every member's metadata.
// Regression tests for fuzzer findings (a changed gid, mtime, name, link target or xattr restored as "verified").
import BackupKit
import DeviceKit
import Foundation
import Glibc
import TestSupport
import Testing

@Suite struct MetadataTamperingTests {
    struct Tamper: CustomStringConvertible, Sendable {
        let description: String
        let member: String
        let apply: @Sendable (inout [UInt8], TarLayout.Entry) -> Void
    }

    static let cases: [Tamper] = [
        Tamper(description: "gid of a file", member: "docs/block") { bytes, entry in
            TarLayout.setField(&bytes, header: entry.header, offset: 116, width: 8, TarLayout.octal(1234, width: 8))
        },
        Tamper(description: "mode of a file", member: "a.txt") { bytes, entry in
            TarLayout.setField(&bytes, header: entry.header, offset: 100, width: 8, TarLayout.octal(0o4755, width: 8))
        },
        Tamper(description: "mtime of a directory", member: "empty-dir/") { bytes, entry in
            TarLayout.editPax(&bytes, entry) { $0.records.append(("mtime", Array("1600000000.5".utf8))) }
        },
        Tamper(description: "a directory renamed", member: "empty-dir/") { bytes, entry in
            TarLayout.setField(&bytes, header: entry.header, offset: 0, width: 100, Array("other-dir/".utf8))
        },
        Tamper(description: "a symlink's target", member: "docs/dangling") { bytes, entry in
            TarLayout.setField(&bytes, header: entry.header, offset: 157, width: 100, Array("elsewhere".utf8))
        },
        Tamper(description: "an xattr added", member: "docs/block-1") { bytes, entry in
            TarLayout.editPax(&bytes, entry) { $0.records.append(("SCHILY.xattr.user.added", Array("sneaky".utf8))) }
        },
        Tamper(description: "nanoseconds dropped", member: "a.txt") { bytes, entry in
            TarLayout.editPax(&bytes, entry) { $0.records.removeAll { $0.key == "mtime" } }
        },
        Tamper(description: "a directory member duplicated", member: "docs/") { bytes, entry in
            bytes.insert(contentsOf: Array(bytes[entry.range]), at: entry.range.upperBound)
        },
    ]

    @Test(arguments: cases)
    func tamperedMetadataFailsVerifyAndRestore(_ tamper: Tamper) throws {
        try withTemporaryDirectory { dir in
            let archive = try FuzzSeeds.mixedBackup(in: dir)
            var bytes = try FuzzSeeds.read(archive)
            let entry = try #require(
                TarLayout(bytes).entries.first { String(decoding: $0.name, as: UTF8.self) == tamper.member })
            tamper.apply(&bytes, entry)
            try Data(bytes).write(to: URL(fileURLWithPath: archive))

            let report = try ArchiveVerification.verify(archive: archive)
            #expect(!report.isValid, "verify accepted: \(tamper)")
            #expect(
                report.problems.contains {
                    $0.contains("member metadata") || $0.contains("members") || $0.contains("duplicate")
                },
                "\(report.problems)")
            let root = dir + "/phone"
            try Device.initialize(root)
            let before = try TreeSnapshot.take(root)
            var options = RestoreOptions()
            options.syncsBeforeMove = false
            #expect(throws: RestoreError.self, "restore accepted: \(tamper)") {
                try ArchiveRestore.restore(archive: archive, root: root, options: options)
            }
            #expect(try TreeSnapshot.take(root) == before)
        }
    }

    @Test func anIntactBackupVerifiesItsMetadata() throws {
        try withTemporaryDirectory { dir in
            let archive = try FuzzSeeds.mixedBackup(in: dir)
            let report = try ArchiveVerification.verify(archive: archive)
            #expect(report.isValid, "\(report.problems)")
            #expect(report.metadataChecked)
            var options = RestoreOptions()
            options.syncsBeforeMove = false
            let restored = try ArchiveRestore.restore(archive: archive, root: dir + "/phone", options: options)
            #expect(restored.verified && restored.metadataVerified)
        }
    }
}
