// MobileSyncReadEndToEndTests: `list` and `verify` read MobileSync backups, devicectl's own and ones made by
// another route, told from a tar by the path alone; every hostile variation fails cleanly naming the problem, and
// nothing in a backup ever changes.
import Foundation
import TestSupport
import Testing

@Suite struct MobileSyncReadEndToEndTests {
    @Test func aBackupMadeByAnotherRouteListsAndVerifies() throws {
        try withTemporaryDirectory { scratch in
            let backup = scratch + "/MobileSync/Backup/00008030-001A2B3C4D5E6F70"
            try FileManager.default.createDirectory(atPath: scratch + "/MobileSync/Backup", withIntermediateDirectories: true)
            try ForeignBackup.make(backup)
            let before = try TreeSnapshot.take(scratch)
            // The backup directory, or the MobileSync/Backup folder that holds it.
            for path in [backup, scratch + "/MobileSync/Backup"] {
                let verified = try BackupCheck.devicectl(["verify", path])
                #expect(verified.status == 0 && verified.stderr.contains("is intact"), "\(verified.stderr)")
                #expect(verified.stderr.contains("3 files") && verified.stderr.contains("3 domains"), "\(verified.stderr)")
            }
            let listed = try BackupCheck.devicectl(["list", backup, "--json"])
            #expect(listed.status == 0, "\(listed.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: listed.stdoutData) as? [String: Any])
            let members = try #require(object["members"] as? [[String: Any]])
            let rows = members.map { "\($0["domain"]!)|\($0["path"]!)|\($0["type"]!)" }
            #expect(rows == ForeignBackup.rows.map { "\($0.0)|\($0.1)|\($0.2 == 1 ? "file" : $0.2 == 2 ? "directory" : "symlink")" })
            let device = try #require(object["backup"] as? [String: Any])
            #expect(device["sourceUdid"] as? String == "00008030-001A2B3C4D5E6F70" && device["productVersion"] as? String == "14.3")
            #expect(device["apps"] as? [String] == ["com.example.app"])
            let link = members.first { $0["path"] as? String == "Documents/link" }
            #expect((link?["link"] as? String)?.hasPrefix("/var/mobile/Containers/Data/Application/") == true)
            let text = try BackupCheck.devicectl(["list", backup, "--summary"])
            #expect(text.stdout.contains("device: Test iPhone, UDID 00008030-001A2B3C4D5E6F70, iPhone12,1 iOS 14.3"), "\(text.stdout)")
            // A filter selects domain/path.
            let filtered = try BackupCheck.devicectl(["list", backup, "AppDomainGroup-group.x/Library"])
            #expect(filtered.stdout.split(separator: "\n").filter { $0.contains("group.x") }.count == 3, "\(filtered.stdout)")
            #expect(try TreeSnapshot.take(scratch) == before)
        }
    }

    @Test func devicectlsOwnBackupVerifiesAndAFolderOfTwoIsRefused() throws {
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone"
            _ = try MobileSyncBackupEndToEndTests.phone(root)
            try FileManager.default.createDirectory(atPath: scratch + "/b", withIntermediateDirectories: true)
            for name in ["one", "two"] {
                let made = try BackupCheck.devicectl(["backup", root, "--format", "mobilesync", "-o", "\(scratch)/b/\(name)", "-q"])
                #expect(made.status == 0, "\(made.stderr)")
            }
            let verified = try BackupCheck.devicectl(["verify", scratch + "/b/one", "--json"])
            let report = try #require(try JSONSerialization.jsonObject(with: verified.stdoutData) as? [String: Any])
            #expect(report["ok"] as? Bool == true && report["format"] as? String == "mobilesync", "\(verified.stderr)")
            let two = try BackupCheck.devicectl(["verify", scratch + "/b"])
            #expect(two.status == 1 && two.stderr.contains("holding 2 MobileSync backups; name one"), "\(two.stderr)")
            let none = try BackupCheck.devicectl(["list", root + "/Library"])
            #expect(none.status == 1 && none.stderr.contains("holding no MobileSync backup"), "\(none.stderr)")
            let restore = try BackupCheck.devicectl(["restore", scratch + "/b", scratch + "/new"])
            #expect(restore.status == 1 && restore.stderr.contains("holding 2 MobileSync backups; name one"), "\(restore.stderr)")
            #expect(!FileManager.default.fileExists(atPath: scratch + "/new"))
        }
    }

    /// Each variation: verify exits 1 naming the problem (list too, when a row is refused), restore exits 1 and
    /// creates nothing (except what real backups have: a missing or odd-sized content file, a warning; a stray
    /// one, never read), never a crash or a signal, and the backup's bytes are unchanged.
    @Test(arguments: [
        ("dotdot", "'..' component", true), ("absolute", "starts with '/'", true), ("slash-domain", "domain is not a name", true),
        ("nul", "NUL", true), ("flags", "flags 8", true), ("fileid", "not the SHA-1", true),
        ("blob-garbage", "its record in Manifest.db is damaged: not a binary property list", true), ("blob-deep", "nested deeper", true),
        ("blob-huge", "a record over", true), ("blob-class", "not an MBFile", true), ("blob-path", "names another path", true),
        ("blob-mode", "is not a file's", true), ("flags-text", "wrong type", true),
        ("no-parent", "Orphan/dir: a directory AppDomain-com.example.app/Orphan/dir/file needs has no row", false),
        ("content-missing", "is missing", false), ("content-short", "5 bytes, the record says 6", false),
        ("content-long", "7 bytes, the record says 6", false), ("content-symlink", "cannot be opened", false),
        ("content-stray", "a content file no row names", false), ("status-new", "not finished", false),
        ("db-garbage", "is not an SQLite database", true), ("db-encrypted", "is an encrypted backup: give its password", true),
        ("db-wal", "-wal file beside it", true), ("db-symlink", "not a regular file", true),
        ("manifest-garbage", "Manifest.plist is unusable", true), ("manifest-huge", "larger than", true),
        ("info-entity", "declares entities", true),
        ("iconstate-garbage", "HomeDomain/Library/SpringBoard/IconState.plist: malformed property list", false),
        ("domains-collide", "MediaDomain/Library/SpringBoard: a file at a path an earlier member already created", false),
    ])
    func aHostileBackupFailsCleanlyAndStaysUnchanged(_ mutation: String, _ message: String, _ listFails: Bool) throws {
        try withTemporaryDirectory { scratch in
            let backup = scratch + "/backup"
            try ForeignBackup.make(backup, mutation: mutation)
            let before = try TreeSnapshot.take(scratch)
            let verified = try BackupCheck.devicectl(["verify", backup])
            #expect(verified.status == 1, "\(mutation): exit \(verified.status): \(verified.stderr)")
            #expect(verified.stderr.contains(message), "\(mutation): \(verified.stderr)")
            #expect(!verified.stderr.contains("Fatal error") && !verified.stderr.contains("Swift/"), "\(verified.stderr)")
            let listed = try BackupCheck.devicectl(["list", backup])
            #expect(listed.status == (listFails ? 1 : 0), "\(mutation): list exit \(listed.status): \(listed.stderr)")
            let restored = try BackupCheck.devicectl(["restore", backup, scratch + "/new"])
            // What real backups have restores, said: a content file missing (the device failed to read the file) is
            // skipped, one of another size (a live database) is restored as it is; a stray one is never read.
            let warnings = [
                "content-stray": nil, "content-missing": "1 file whose content file is missing (not restored): "
                    + "AppDomain-com.example.app/Documents/notes.txt",
                "content-short": "1 file whose size differs from its record's Size: "
                    + "AppDomain-com.example.app/Documents/notes.txt (5 bytes, the record says 6)",
                "content-long": "1 file whose size differs from its record's Size: "
                    + "AppDomain-com.example.app/Documents/notes.txt (7 bytes, the record says 6)",
            ]
            let restores = warnings.keys.contains(mutation)
            #expect(restored.status == (restores ? 0 : 1), "\(mutation): restore exit \(restored.status): \(restored.stderr)")
            if let warning = warnings[mutation] ?? nil {
                #expect(restored.stderr.contains(warning), "\(mutation): \(restored.stderr)")
            }
            #expect(!restored.stderr.contains("Fatal error") && !restored.stderr.contains("Swift/"), "\(restored.stderr)")
            #expect(FileManager.default.fileExists(atPath: scratch + "/new") == restores, "\(mutation)")
            if restores { try FileManager.default.removeItem(atPath: scratch + "/new") }
            #expect(try TreeSnapshot.take(scratch) == before, "\(mutation) changed the backup")
        }
    }

    /// Times a record can hold and no calendar names (LastModified 2^63-1, Birth -2^63): `list` shows them as their
    /// seconds, as GNU tar lists such an mtime (it used to trap converting them to a date and back); verify and
    /// restore take the backup as any other.
    @Test func timesPastAnyCalendarAreListedAsSeconds() throws {
        try withTemporaryDirectory { scratch in
            let backup = scratch + "/backup"
            try ForeignBackup.make(backup, mutation: "times-extreme")
            let listed = try BackupCheck.devicectl(["list", backup])
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect(listed.stdout.contains(" 9223372036854775807  AppDomain-com.example.app/Documents/old\n"), "\(listed.stdout)")
            let json = try BackupCheck.devicectl(["list", backup, "--json"])
            #expect(json.status == 0, "\(json.stderr)")
            let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            let members = try #require(object?["members"] as? [[String: Any]])
            let old = members.first { $0["path"] as? String == "Documents/old" }
            #expect(old?["mtime"] as? String == "9223372036854775807", "\(members)")
            let verified = try BackupCheck.devicectl(["verify", backup])
            #expect(verified.status == 0, "\(verified.stderr)")
            let restored = try BackupCheck.devicectl(["restore", backup, scratch + "/new"])
            #expect(restored.status == 0, "\(restored.stderr)")
        }
    }
}
