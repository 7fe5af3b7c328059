// MobileSyncRestoreEndToEndTests: `restore` of MobileSync backups (devicectl's own, ones built by another route,
// encrypted ones and copies another tool decrypted) onto fresh device roots: containers under new UUIDs, apps
// reinstalled, the nudge's marker and flag as a real restore leaves them, domains outside /var/mobile counted and
// left out; a wrong password or a damaged file restores nothing, and nothing in the backup changes.
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct MobileSyncRestoreEndToEndTests {
    static let news = NudgeFixture.news
    static let group = "group.com.example.news"

    /// What the restored phone says about the news app (`status --json`).
    static func newsStatus(_ root: String) throws -> [String: Any] {
        let status = try BackupCheck.devicectl(["status", root, "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: status.stdoutData) as? [String: Any])
        let apps = try #require(object["apps"] as? [[String: Any]])
        return try #require(apps.first { $0["bundleId"] as? String == news })
    }

    /// The restored phone is the old one as a restore leaves it: its data in a new container, the marker gone (it
    /// was excluded from backup), the flag in the App Group true, the widget placed; so the widget nudges.
    static func expectRestoredPhone(_ old: String, _ new: String, oldData: String) throws {
        let device = try Device.open(new)
        let data = try #require(try device.container(.data, identifier: news))
        #expect(data.path != oldData.replacingOccurrences(of: old, with: new), "a new UUID for the data container")
        #expect(try Data(contentsOf: URL(fileURLWithPath: data.path + "/Documents/sub/a.txt")) == Data("hello\n".utf8))
        #expect(try Data(contentsOf: URL(fileURLWithPath: data.path + "/Documents/hard.txt")) == Data("hello\n".utf8))
        #expect(FileManager.default.fileExists(atPath: data.path + "/Documents/Résumé 📱.txt"))
        let attribute = try Shell.run("getfattr", ["--only-values", "-n", "user.test.attr", data.path + "/Documents/sub/a.txt"])
        #expect(attribute.stdout == "hi")
        #expect(try device.identity().udid != (try Device.open(old).identity().udid), "the new phone keeps its identity")
        let app = try newsStatus(new)
        #expect(app["groups"] as? [String] == [group])
        #expect(app["markerPresent"] as? Bool == false && app["flag"] as? Bool == true, "\(app)")
        #expect(app["widgetPlaced"] as? Bool == true && app["lastDeviceToken"] is NSNull, "\(app)")
        let refresh = try BackupCheck.devicectl(["widget-refresh", new, "--now", "2026-12-02T09:00:00Z"])
        #expect(refresh.status == 0 && refresh.stdout.contains("scheduled (restored)"), "\(refresh.stdout)\(refresh.stderr)")
    }

    @Test func aDevicesOwnBackupRestoresAndTheWidgetNudges() throws {
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone", backup = scratch + "/backup", new = scratch + "/new"
            let oldData = try MobileSyncBackupEndToEndTests.phone(root)
            // Larger than a batch of the content-file thread (256 KiB): handed over in pieces.
            let big = Data((0..<700_001).map { UInt8(truncatingIfNeeded: $0 &* 17 &+ 3) })
            try big.write(to: URL(fileURLWithPath: oldData + "/Documents/big.bin"))
            let made = try BackupCheck.devicectl(["backup", root, "--format", "mobilesync", "-o", backup, "-q"])
            try #require(made.status == 0, "\(made.stderr)")
            let before = try TreeSnapshot.take(backup)
            let restored = try BackupCheck.devicectl(["restore", backup, new, "--json"])
            #expect(restored.status == 0, "\(restored.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: restored.stdoutData) as? [String: Any])
            #expect(report["format"] as? String == "mobilesync" && report["apps"] as? [String] == [Self.news])
            #expect(report["sourceUdid"] as? String == (try Device.open(root).identity().udid))
            #expect(report["verified"] as? Bool == false && (report["notPlaced"] as? [Any])?.isEmpty == true)
            #expect((report["warnings"] as? [Any])?.isEmpty == true, "\(report)")
            // Documents/link points inside its own container (the backup names it by the old UUID): relative again.
            let data = try #require(try Device.open(new).container(.data, identifier: Self.news))
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: data.path + "/Documents/link")
                == "../Library/Preferences")
            #expect(try Data(contentsOf: URL(fileURLWithPath: data.path + "/Documents/big.bin")) == big)
            try Self.expectRestoredPhone(root, new, oldData: oldData)
            #expect(try TreeSnapshot.take(backup) == before, "the restore changed the backup")
            // Not onto a device that has apps.
            let again = try BackupCheck.devicectl(["restore", backup, new])
            #expect(again.status == 1 && again.stderr.contains("is not a fresh device"), "\(again.stderr)")
        }
    }

    /// With `--progress --json`, restore, verify and list of a backup directory report a share of Manifest.db's
    /// rows: every line's total is the row count, and its percent lies within 0...100.
    @Test func progressOverABackupDirectoryIsAShareOfItsRows() throws {
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone", backup = scratch + "/backup"
            _ = try MobileSyncBackupEndToEndTests.phone(root)
            let made = try BackupCheck.devicectl(["backup", root, "--format", "mobilesync", "-o", backup, "-q"])
            try #require(made.status == 0, "\(made.stderr)")
            let count = try Shell.run(
                "python3", ["-c", "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT COUNT(*) FROM Files').fetchone()[0])",
                    backup + "/Manifest.db"])
            let rows = try #require(Int(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
            for arguments in [["restore", backup, scratch + "/new"], ["verify", backup], ["list", backup]] {
                let result = try BackupCheck.devicectl(arguments + ["--progress", "--json"])
                #expect(result.status == 0, "\(arguments[0]): \(result.stderr)")
                let lines = result.stderr.split(separator: "\n").filter { $0.contains(#""type":"progress""#) }
                #expect(!lines.isEmpty, "\(arguments[0]): \(result.stderr)")
                for line in lines {
                    let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                    #expect(object["total"] as? Int == rows, "\(arguments[0]): \(line)")
                    let percent = try #require((object["percent"] as? NSNumber)?.doubleValue, "\(line)")
                    #expect(percent > 0 && percent <= 100, "\(line)")
                }
            }
        }
    }

    @Test func aBackupMadeByAnotherRouteRestoresItsMobileDomainsOnly() throws {
        try withTemporaryDirectory { scratch in
            let backup = scratch + "/backup", new = scratch + "/new"
            try ForeignBackup.make(backup, mutation: "system-domains")
            let before = try TreeSnapshot.take(backup)
            let restored = try BackupCheck.devicectl(["restore", backup, new, "--json"])
            #expect(restored.status == 0, "\(restored.stderr)")
            let report = try #require(try JSONSerialization.jsonObject(with: restored.stdoutData) as? [String: Any])
            #expect(report["apps"] as? [String] == ["com.example.app"])
            #expect(report["sourceUdid"] as? String == "00008030-001A2B3C4D5E6F70")
            let notPlaced = (report["notPlaced"] as? [[String: Any]] ?? []).map { "\($0["domain"]!) \($0["entries"]!)" }
            #expect(notPlaced == ["KeychainDomain 2", "RootDomain 3"], "\(notPlaced)")
            let warnings = (report["warnings"] as? [[String: Any]] ?? []).compactMap { $0["message"] as? String }
            #expect(
                warnings.contains {
                    $0.hasPrefix("2 symbolic links not restored: HomeDomain/Library/etc-link -> /etc/passwd; "
                        + "HomeDomain/Library/up-link -> ../../etc/passwd")
                }, "\(warnings)")
            let device = try Device.open(new)
            let data = try #require(try device.container(.data, identifier: "com.example.app"))
            #expect(try String(contentsOfFile: data.path + "/Documents/notes.txt", encoding: .utf8) == "hello\n")
            // A link into a data container from a data container is into its own (the sandbox allows no other).
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: data.path + "/Documents/link") == "../Library")
            // Every container restored gets containermanagerd's metadata; the App Group no app names is kept.
            let shared = try #require(try device.container(.group, identifier: "group.x"))
            let plist = try Data(contentsOf: URL(fileURLWithPath: shared.path + "/Library/Preferences/group.x.plist"))
            let values = try PropertyListSerialization.propertyList(from: plist, format: nil) as? [String: Any]
            #expect(values?["FeatureEnabled"] as? Bool == true)
            #expect(FileManager.default.fileExists(atPath: data.path + "/Library/Caches"), "never-backed-up directories made")
            // HealthDomain is /var/mobile/Library; a link to a /var/mobile path is made relative, inside ROOT.
            #expect(try String(contentsOfFile: new + "/Library/Health/healthdb.sqlite", encoding: .utf8) == "health")
            let link = try FileManager.default.destinationOfSymbolicLink(atPath: new + "/Library/SpringBoard/home-link")
            #expect(link == "IconState.plist")
            #expect(!FileManager.default.fileExists(atPath: new + "/Library/etc-link"))
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: new + "/Library/up-link")) == nil)
            let everything = try FileManager.default.subpathsOfDirectory(atPath: new)
            #expect(!everything.contains { $0.hasSuffix("locationd.db") || $0.hasSuffix("keychain-backup.plist") })
            #expect(try TreeSnapshot.take(backup) == before)
        }
    }

    @Test func anEncryptedBackupRestoresWithItsPasswordOnly() throws {
        try MobileSyncEncryptedEndToEndTests.requireOracles()
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone", backup = scratch + "/backup", temporary = scratch + "/tmp"
            try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
            let data = try MobileSyncBackupEndToEndTests.phone(root)
            // Larger than the reader's buffer: streamed and decrypted block by block (small files are decrypted whole).
            let big = Data((0..<300_005).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
            try big.write(to: URL(fileURLWithPath: data + "/Documents/big.bin"))
            try MobileSyncEncryptedEndToEndTests.backUp(root, to: backup)
            let before = try TreeSnapshot.take(backup)
            let none = try BackupCheck.devicectl(["restore", backup, scratch + "/a"])
            #expect(none.status == 1 && none.stderr.contains("is an encrypted backup: give its password"), "\(none.stderr)")
            let wrong = try BackupCheck.devicectl(
                ["restore", backup, scratch + "/b"], environment: ["DEVICECTL_BACKUP_PASSWORD": "wrong", "TMPDIR": temporary])
            #expect(wrong.status == 1 && wrong.stderr.contains("wrong password for backup \(backup)"), "\(wrong.stderr)")
            #expect(!FileManager.default.fileExists(atPath: scratch + "/a") && !FileManager.default.fileExists(atPath: scratch + "/b"))
            let passwordFile = scratch + "/password"
            try (MobileSyncEncryptedEndToEndTests.password + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
            let restored = try BackupCheck.devicectl(
                ["restore", backup, scratch + "/new", "--password-file", passwordFile], environment: ["TMPDIR": temporary])
            #expect(restored.status == 0, "\(restored.stderr)")
            #expect(!restored.stderr.contains(MobileSyncEncryptedEndToEndTests.password))
            try Self.expectRestoredPhone(root, scratch + "/new", oldData: data)
            let restoredData = try #require(try Device.open(scratch + "/new").container(.data, identifier: Self.news))
            #expect(try Data(contentsOf: URL(fileURLWithPath: restoredData.path + "/Documents/big.bin")) == big)
            #expect(try TreeSnapshot.take(backup) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [], "the decrypted Manifest.db is gone")
        }
    }

    @Test func othersEncryptedBackupsAndDecryptedCopiesRestore() throws {
        try MobileSyncEncryptedEndToEndTests.requireOracles()
        try withTemporaryDirectory { scratch in
            let environment = ["DEVICECTL_BACKUP_PASSWORD": MobileSyncEncryptedEndToEndTests.password]
            for stages in [2, 1] {
                let backup = scratch + "/enc\(stages)", new = scratch + "/new\(stages)"
                try ForeignBackup.make(backup)
                try ForeignBackup.encrypt(backup, password: MobileSyncEncryptedEndToEndTests.password, stages: stages)
                let restored = try BackupCheck.devicectl(["restore", backup, new], environment: environment)
                #expect(restored.status == 0, "\(stages) stages: \(restored.stderr)")
                let data = try #require(try Device.open(new).container(.data, identifier: "com.example.app"))
                #expect(try String(contentsOfFile: data.path + "/Documents/notes.txt", encoding: .utf8) == "hello\n")
            }
            // A content file cut short does not decrypt: named, and nothing restored.
            let cut = scratch + "/cut"
            try ForeignBackup.make(cut)
            try ForeignBackup.encrypt(cut, password: MobileSyncEncryptedEndToEndTests.password, mutation: "truncated")
            let damaged = try BackupCheck.devicectl(["restore", cut, scratch + "/damaged"], environment: environment)
            #expect(damaged.status == 1 && damaged.stderr.contains("does not decrypt"), "\(damaged.stderr)")
            #expect(!FileManager.default.fileExists(atPath: scratch + "/damaged"))
            // pyiosbackup's decrypted copy (IsEncrypted and ManifestKey kept, all else plain) restores without one.
            let own = scratch + "/own", copy = scratch + "/copy", root = scratch + "/phone"
            let data = try MobileSyncBackupEndToEndTests.phone(root)
            try MobileSyncEncryptedEndToEndTests.backUp(root, to: own)
            let extracted = try Shell.run(MobileSyncInteropTests.python, ["-c", """
                import sys
                from pyiosbackup import Backup
                Backup.from_path(sys.argv[1], password=sys.argv[2]).extract_all(sys.argv[3])
                """, own, MobileSyncEncryptedEndToEndTests.password, copy])
            try #require(extracted.status == 0, "pyiosbackup: \(extracted.stderr)")
            let restored = try BackupCheck.devicectl(["restore", copy, scratch + "/fromcopy"])
            #expect(restored.status == 0, "\(restored.stderr)")
            try Self.expectRestoredPhone(root, scratch + "/fromcopy", oldData: data)
        }
    }
}
