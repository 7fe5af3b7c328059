// RestoreTests: restores of well-formed archives: bytes and metadata exact, manifest checked, ROOT rules.
import BackupKit
import DeviceKit
import Foundation
import SystemKit
import Testing
import TestSupport

@Suite struct RestoreTests {
    static let members: [TestMember] = [
        .directory("Library", mode: 0o755),
        .directory("Library/Preferences", mode: 0o700, mtime: 1_600_000_000, nanos: 999_999_999),
        .file("Library/Preferences/a.plist", Array("hello\n".utf8), mode: 0o600, nanos: 1),
        .file("Library/Preferences/empty", [], mode: 0o444),
        .file("Library/Preferences/big.bin", (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }, mode: 0o640,
              xattrs: [("user.note", Array("kept".utf8)), ("user.binary", [0, 1, 2, 255])]),
        .symlink("Library/link", "Preferences/a.plist"),
        .symlink("Library/dangling", "Preferences/nothing-here"),
        .hardlink("Library/Preferences/a-again", "Library/Preferences/a.plist"),
        .directory("Documents", mode: 0o1777, mtime: 1_650_000_000, nanos: 42),
        .file("Documents/ünïcødé name with spaces.txt", Array("x".utf8)),
        .file("Documents/" + String(repeating: "long-", count: 40) + "name", Array("long".utf8)),
        .directory("Documents/empty-dir", mode: 0o750),
    ]

    @Test func roundTripKeepsBytesAndMetadata() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            try scratch.write(TarBuilder.archive(Self.members))
            let report = try scratch.restore()
            #expect(report.verified)
            #expect(report.metadataVerified)
            #expect(report.files == 5)
            #expect(report.hardlinks == 1)
            #expect(report.symlinks == 2)
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
}
