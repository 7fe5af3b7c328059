// VerifyRestoreAgreementTests: verify says "intact" exactly when restore would restore. Regression tests for
// fuzzer findings where they disagreed: a hard link given a pax size (verify passed, restore refused), a file
// whose pax size outgrows its data (verify hashed zeros for ever), a sparse manifest, an extended attribute
// Linux cannot hold (restore failed in fsetxattr with E2BIG; verify now names it, and restore refuses it first).
import BackupKit
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct VerifyRestoreAgreementTests {
    struct Edit: CustomStringConvertible, Sendable {
        let description: String
        let member: String
        let records: [(String, String)]
    }

    static let edits: [Edit] = [
        Edit(
            description: "a hard link with a sparse size", member: "docs/block-again",
            records: [("GNU.sparse.map", "180435,4543"), ("GNU.sparse.size", "1000"), ("GNU.sparse.numblocks", "1")]),
        Edit(
            description: "a file whose size outgrows its data", member: "a.txt",
            records: [("GNU.sparse.realsize", "99999999999999999999999")]),
        Edit(
            description: "a file with a few bytes more than its data", member: "docs/block",
            records: [("GNU.sparse.realsize", "4096")]),
        Edit(
            description: "a sparse manifest", member: ".devicectl-manifest.jsonl",
            records: [("GNU.sparse.map", "0,10"), ("GNU.sparse.size", "10"), ("GNU.sparse.numblocks", "1")]),
    ]

    @Test(arguments: [
        ("SCHILY.xattr.user.big", String(repeating: "v", count: 70_000), "more than Linux allows (65536)"),
        ("SCHILY.xattr.user." + String(repeating: "n", count: 300), "x", "longer than Linux allows (255 bytes)"),
    ])
    func anExtendedAttributeLinuxCannotHoldIsNamedByBoth(_ key: String, _ value: String, _ message: String) throws {
        try withTemporaryDirectory { dir in
            try FuzzSeeds.makeMixedTree(dir + "/src")
            let archive = dir + "/backup.tar"
            _ = try BackupEngine.backup(
                BackupRequest(root: dir + "/src", output: .file(archive), created: FuzzSeeds.created, tool: "devicectl test"),
                warning: { _ in })
            var bytes = try FuzzSeeds.read(archive)
            let entry = try #require(TarLayout(bytes).entries.first { String(decoding: $0.name, as: UTF8.self) == "a.txt" })
            TarLayout.editPax(&bytes, entry) { $0.records.append((key, Array(value.utf8))) }
            try Data(bytes).write(to: URL(fileURLWithPath: archive))
            let report = try ArchiveVerification.verify(archive: archive)
            #expect(report.problems.contains { $0.contains("member 'a.txt'") && $0.contains(message) }, "\(report.problems)")
            let root = dir + "/phone"
            try Device.initialize(root)
            let before = try TreeSnapshot.take(root)
            var options = RestoreOptions()
            options.syncsBeforeMove = false
            let error = #expect(throws: RestoreError.self) {
                try ArchiveRestore.restore(archive: archive, root: root, options: options)
            }
            #expect("\(error!)".contains(message), "\(error!)")
            #expect(try TreeSnapshot.take(root) == before)
        }
    }

    @Test(arguments: edits)
    func verifyAndRestoreAgree(_ edit: Edit) throws {
        try withTemporaryDirectory { dir in
            try FuzzSeeds.makeMixedTree(dir + "/src")
            let archive = dir + "/backup.tar"
            _ = try BackupEngine.backup(
                BackupRequest(
                    root: dir + "/src", output: .file(archive), created: FuzzSeeds.created, tool: "devicectl test"),
                warning: { _ in })
            var bytes = try FuzzSeeds.read(archive)
            let entry = try #require(
                TarLayout(bytes).entries.first { String(decoding: $0.name, as: UTF8.self) == edit.member })
            TarLayout.editPax(&bytes, entry) { $0.records += edit.records.map { ($0.0, Array($0.1.utf8)) } }
            try Data(bytes).write(to: URL(fileURLWithPath: archive))

            let start = Date()
            let report = try? ArchiveVerification.verify(archive: archive)
            #expect(report?.isValid != true, "verify passed \(edit)")
            let root = dir + "/phone"
            try Device.initialize(root)
            let before = try TreeSnapshot.take(root)
            var options = RestoreOptions()
            options.syncsBeforeMove = false
            #expect(throws: RestoreError.self, "restore accepted \(edit)") {
                try ArchiveRestore.restore(archive: archive, root: root, options: options)
            }
            #expect(try TreeSnapshot.take(root) == before)
            #expect(Date().timeIntervalSince(start) < 10)
        }
    }
}
