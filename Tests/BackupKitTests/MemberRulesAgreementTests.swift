// MemberRulesAgreementTests: restore and verify judge a member's header by one set of rules (MemberRules), so
// for each hostile member below restore refuses the archive and verify names the same reason, and for members
// restore skips (below DeviceLocal/) neither complains. Archives are built byte by byte (TarBuilder).
import BackupKit
import Foundation
import TarKit
import TestSupport
import Testing

@Suite struct MemberRulesAgreementTests {
    struct Case: CustomStringConvertible, Sendable {
        let description: String
        let members: [TestMember]
        /// The reason both restore and verify give.
        let reason: String
    }

    static let file = TestMember.file("Documents/a.txt", Array("alpha".utf8))

    static let refused: [Case] = [
        Case(
            description: "a hard link into DeviceLocal",
            members: [.directory("Documents"), file, .hardlink("Documents/b", "DeviceLocal/identity.plist")],
            reason: "hard link into DeviceLocal (device-local state)"),
        Case(
            description: "a symlink climbing out of ROOT",
            members: [.directory("Documents"), .symlink("Documents/out", "../../outside")],
            reason: "('../../outside')"),
        Case(
            description: "a member in a restore's staging name",
            members: [.directory(".devicectl-restore-1-x")],
            reason: "the name is reserved for restore staging directories"),
        Case(
            description: "a device plist that is a symlink",
            members: [.directory("Library"), .directory("Library/SpringBoard"),
                      .symlink("Library/SpringBoard/IconState.plist", "elsewhere.plist")],
            reason: "a device plist that is a symlink, not a regular file"),
        Case(
            description: "two values for one extended attribute",
            members: [.file("a.txt", [1], xattrs: [("user.k", [1]), ("user.k", [2])])],
            reason: "two different values for the extended attribute user.k"),
        Case(
            description: "an attribute value larger than Linux holds",
            members: [.file("a.txt", [1], xattrs: [("user.big", [UInt8](repeating: 7, count: 65537))])],
            reason: "the extended attribute user.big holds 65537 bytes, more than Linux allows (65536)"),
    ]

    @Test(arguments: refused)
    func restoreRefusesAndVerifyNamesTheSameReason(_ hostile: Case) throws {
        let archive = TarBuilder.archive(hostile.members)
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            try scratch.write(archive)
            let before = try scratch.snapshot()
            var restoreMessage = ""
            do {
                try scratch.restore()
                Issue.record("restore accepted \(hostile)")
            } catch let error as RestoreError {
                restoreMessage = error.description
            }
            #expect(restoreMessage.contains(hostile.reason), "restore: \(restoreMessage)")
            #expect(try scratch.snapshot() == before)
            let report = try ArchiveVerification.verify(archive: scratch.archive)
            #expect(!report.isValid)
            #expect(
                report.problems.contains { $0.contains(hostile.reason) && $0.hasSuffix("(restore refuses it)") },
                "verify: \(report.problems)")
        }
    }

    /// Restore skips members below DeviceLocal/ without judging their links; verify no longer reports them.
    @Test func aSymlinkBelowDeviceLocalIsSkippedByBoth() throws {
        let archive = TarBuilder.archive([
            .directory("DeviceLocal"), .symlink("DeviceLocal/out", "../../../outside"), .directory("Documents"), Self.file,
        ])
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            try scratch.write(archive)
            let report = try scratch.restore()
            #expect(report.verified)
            let verified = try ArchiveVerification.verify(archive: scratch.archive)
            #expect(verified.isValid, "\(verified.problems)")
        }
    }

    /// A directory named like the manifest: restore refuses it, verify says so (it used to pass it as a directory).
    @Test func aManifestNameUsedByADirectoryIsRefusedByBoth() throws {
        var builder = TarBuilder()
        builder.add(Self.file)
        builder.add(.directory(".devicectl-manifest.jsonl"))
        builder.end()
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            try scratch.write(builder.bytes)
            #expect(throws: RestoreError.self) { try scratch.restore() }
            let report = try ArchiveVerification.verify(archive: scratch.archive)
            #expect(report.problems.contains { $0.contains("the manifest name is used by a directory") })
        }
    }
}
