// RestoreTests: restores of well-formed archives: bytes and metadata exact, manifest checked, ROOT rules.
@testable import BackupKit
import DeviceKit
import Foundation
import Glibc
import SystemKit
import TestSupport
import Testing

@Suite struct RestoreTests {
    static let members: [TestMember] = [
        .directory("Library", mode: 0o755),
        .directory("Library/Preferences", mode: 0o700, mtime: 1_600_000_000, nanos: 999_999_999),
        .file("Library/Preferences/a.plist", Array("hello\n".utf8), mode: 0o600, nanos: 1),
        .file("Library/Preferences/empty", [], mode: 0o444),
        .file(
            "Library/Preferences/big.bin", (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }, mode: 0o640,
            xattrs: [("user.note", Array("kept".utf8)), ("user.binary", [0, 1, 2, 255])]),
        .symlink("Library/link", "Preferences/a.plist"),
        .symlink("Library/dangling", "Preferences/nothing-here"),
        .hardlink("Library/Preferences/a-again", "Library/Preferences/a.plist"),
        .directory("Documents", mode: 0o1777, mtime: 1_650_000_000, nanos: 42),
        .file("Documents/ünïcødé name with spaces.txt", Array("x".utf8)),
        .file("Documents/" + String(repeating: "long-", count: 40) + "name", Array("long".utf8)),
        .directory("Documents/empty-dir", mode: 0o750),
    ]

    @Test(arguments: [FileCreation.writer, .reader])
    func roundTripKeepsBytesAndMetadata(_ creation: FileCreation) throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            try scratch.write(TarBuilder.archive(Self.members))
            let report = try scratch.restore { $0.fileCreation = creation }
            #expect(report.verified)
            #expect(report.metadataVerified)
            #expect(report.counts.files == 5)
            #expect(report.counts.hardlinks == 1)
            #expect(report.counts.symlinks == 2)
            #expect(report.warnings.isEmpty)
            let snapshot = try TreeSnapshot.take(scratch.root)
            let a = try #require(snapshot["Library/Preferences/a.plist"])
            #expect(a.hasPrefix("regular 600 "))
            #expect(a.contains("mtime=1700000000.1 "))
            #expect(snapshot["Library/Preferences/a.plist"]?.contains("link=Library/Preferences/a-again") == true)
            #expect(snapshot["Library/Preferences/empty"]?.hasPrefix("regular 444") == true)
            let big = try #require(snapshot["Library/Preferences/big.bin"])
            #expect(big.contains("user.binary=[0, 1, 2, 255]"))
            #expect(big.contains("user.note=\(Array("kept".utf8))"))
            #expect(snapshot["Library/Preferences"]?.contains("directory 700") == true)
            #expect(snapshot["Library/Preferences"]?.contains("mtime=1600000000.999999999") == true)
            #expect(snapshot["Documents"]?.contains("directory 1777") == true)
            #expect(snapshot["Documents"]?.contains("mtime=1650000000.42") == true)
            #expect(snapshot["Library/link"]?.hasSuffix("-> Preferences/a.plist") == true)
            #expect(snapshot["Library/link"]?.contains("mtime=1700000200.0") == true)
            #expect(snapshot["Documents/ünïcødé name with spaces.txt"] != nil)
            #expect(snapshot["Documents/empty-dir"]?.contains("directory 750") == true)
            #expect(snapshot.keys.contains { $0.hasPrefix(".devicectl-restore-") } == false)
            #expect(snapshot["DeviceLocal/identity.plist"] != nil)
        }
    }

    @Test func setuidAndSetgidAreStrippedStickyKept() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            try scratch.write(
                TarBuilder.archive([
                    .file("suid", [1], mode: 0o4755), .file("sgid", [1], mode: 0o2750),
                    .directory("shared", mode: 0o3777),
                ]))
            try scratch.restore()
            let snapshot = try TreeSnapshot.take(scratch.root)
            #expect(snapshot["suid"]?.hasPrefix("regular 755 ") == true)
            #expect(snapshot["sgid"]?.hasPrefix("regular 750 ") == true)
            #expect(snapshot["shared"]?.hasPrefix("directory 1777 ") == true)
        }
    }

    @Test func onlyUserXattrsAreAppliedOthersWarned() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            try scratch.write(
                TarBuilder.archive([
                    .file(
                        "f", [1],
                        xattrs: [
                            ("user.keep", [7]), ("security.evil", [1]), ("trusted.evil", [2]), ("unnamespaced", [3]),
                        ])
                ]))
            let report = try scratch.restore()
            #expect(try ExtendedAttributes.names(at: scratch.root + "/f") == ["user.keep"])
            #expect(report.warnings.contains { $0.contains("skipped 3 extended attributes outside user.*") })
        }
    }

    @Test func deviceLocalMembersAreSkippedWithAWarning() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            let identity = try Data(contentsOf: URL(fileURLWithPath: scratch.root + "/" + DeviceLayout.identity))
            try scratch.write(
                TarBuilder.archive([
                    .directory("DeviceLocal"), .file("DeviceLocal/identity.plist", Array("stolen identity".utf8)),
                    .file("DeviceLocal/events.jsonl", Array("{}\n".utf8)), .file("kept", [1]),
                ]))
            let report = try scratch.restore()
            #expect(report.verified)
            #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.root + "/" + DeviceLayout.identity)) == identity)
            // The device's own log holds the restore event, not the archive's "{}" line.
            let events = try String(contentsOfFile: scratch.root + "/" + DeviceLayout.events, encoding: .utf8)
            #expect(events.contains("\"type\":\"restore\""))
            #expect(!events.contains("{}"))
            #expect(FileManager.default.fileExists(atPath: scratch.root + "/kept"))
            #expect(report.warnings.contains { $0.contains("skipped 3 DeviceLocal/ members") })
        }
    }

    @Test func ownershipIsRestoredAsRoot() throws {
        guard geteuid() == 0 else { return }
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            var builder = TarBuilder()
            builder.header(name: Array("owned-dir/".utf8), type: UInt8(ascii: "5"), mode: 0o755, uid: 1234, gid: 5678)
            builder.header(
                name: Array("owned-file".utf8), type: UInt8(ascii: "0"), size: 1, mode: 0o640, uid: 4321, gid: 8765)
            builder.data([9])
            builder.header(
                name: Array("owned-link".utf8), type: UInt8(ascii: "2"), mode: 0o777, uid: 1111, gid: 2222,
                link: Array("owned-file".utf8))
            builder.end()
            try scratch.write(builder.bytes)
            try scratch.restore()
            let snapshot = try TreeSnapshot.take(scratch.root)
            #expect(snapshot["owned-dir"]?.contains(" 1234:5678 ") == true)
            #expect(snapshot["owned-file"]?.contains(" 4321:8765 ") == true)
            #expect(snapshot["owned-link"]?.contains(" 1111:2222 ") == true)
        }
    }

    @Test func ownershipIsExactUnderASetgidRoot() throws {
        guard geteuid() == 0 else { return }
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            // A setgid ROOT makes new entries inherit its group: the archived root:root must still win.
            chown(scratch.root, 0, 4242)
            chmod(scratch.root, 0o2755)
            try scratch.write(TarBuilder.archive([.directory("d"), .file("d/f", [1]), .file("g", [2])]))
            try scratch.restore()
            let snapshot = try TreeSnapshot.take(scratch.root)
            #expect(snapshot["d"]?.contains(" 0:0 ") == true)
            #expect(snapshot["d/f"]?.contains(" 0:0 ") == true)
            #expect(snapshot["g"]?.contains(" 0:0 ") == true)
        }
    }
}
