// MobileSyncBackupEndToEndTests: `backup --format mobilesync -o DIR` makes a backup directory laid out as a
// device's (read back by Python's standard library alone: MobileSyncCheck), from a device root's containers,
// under the same exclusion rules as a tar backup, and never replaces anything but a backup.
import DeviceKit
import Foundation
import Glibc
import TestSupport
import Testing

@Suite struct MobileSyncBackupEndToEndTests {
    static let news = NudgeFixture.news
    static let group = "group.com.example.news"

    /// A phone whose app was launched (marker and flag), with documents of every kind in its data container: a
    /// nested file, an empty one, a non-ASCII name, a file with an attribute, a symlink, a hard link, and a cache.
    static func phone(_ root: String) throws -> String {
        try NudgeFixture.phone(root)
        try NudgeFixture.launch(root, at: NudgeFixture.at(hours: 0))
        let data = try Device.open(root).container(.data, identifier: news)!.path
        try BackupCheck.sh(
            """
            cd "$1" && mkdir -p Documents/sub Library/Caches && printf 'hello\\n' > Documents/sub/a.txt
            : > Documents/empty && printf 'résumé' > 'Documents/Résumé 📱.txt' && printf x > Library/Caches/c.bin
            setfattr -n user.test.attr -v hi Documents/sub/a.txt && ln -s ../Library/Preferences Documents/link
            ln Documents/sub/a.txt Documents/hard.txt
            """, data)
        return data
    }

    @Test func aDeviceBecomesABackupDirectoryThatAStandardLibraryReaderAccepts() throws {
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone", backup = scratch + "/backup"
            let data = try Self.phone(root)
            let result = try BackupCheck.devicectl(["backup", root, "--format", "mobilesync", "-o", backup, "-q"])
            #expect(result.status == 0, "\(result.stderr)")
            let report = try MobileSyncCheck.read(backup)
            #expect(report.problems == [])
            // The phone's header: page size 4096, WAL mode; no sidecar files; the plists as devices write them.
            #expect(report.headerBytes == [16, 0, 2, 2])
            #expect(!report.files.contains { $0.hasSuffix("-wal") || $0.hasSuffix("-shm") || $0.hasSuffix("-journal") })
            #expect(Set(report.files.filter { !$0.contains("/") }) == [
                "Info.plist", "Manifest.db", "Manifest.plist", "Status.plist", "devicectl-manifest.jsonl",
            ])
            #expect(report.udid == (try Device.open(root).identity().udid))
            #expect(report.productVersion.compare("10.2", options: .numeric) == .orderedDescending)
            #expect(!report.isEncrypted && report.snapshotState == "finished")
            #expect(report.applications == [Self.news] && report.installedApplications == [Self.news])
            // devicectl's manifest is its header alone (the apps, their groups and widgets, for restore): no per-file
            // lines, whose digests no reader of this format checks.
            let sidecar = try String(contentsOfFile: backup + "/devicectl-manifest.jsonl", encoding: .utf8)
            #expect(sidecar.hasSuffix("}\n") && sidecar.filter { $0 == "\n" }.count == 1, "\(sidecar)")
            let header = try #require(
                try JSONSerialization.jsonObject(with: Data(sidecar.utf8)) as? [String: Any])
            #expect(header["kind"] as? String == "header" && header["groups"] as? [String] == [Self.group])
            #expect((header["widgets"] as? [[String: Any]])?.first?["app"] as? String == Self.news)
            // Domains: the app's data, its group, its widget's extension, and the rest of /var/mobile.
            #expect(report.domains == [
                "HomeDomain", "AppDomain-\(Self.news)", "AppDomainGroup-\(Self.group)",
                "AppDomainPlugin-\(Self.news).NudgeWidget",
            ])
            // The flag survives, the marker (excluded from backup) does not: what the nudge relies on.
            let flagRow = try #require(report.row("AppDomainGroup-\(Self.group)", "Library/Preferences/\(Self.group).plist"))
            #expect(flagRow.sha256 == (try MobileSyncCheck.sha256(of: NudgeFixture.suitePath(root))))
            #expect(!report.rows.contains { $0.path.hasSuffix(NudgeSettings.defaultMarkerFileName) })
            #expect(report.row("HomeDomain", "Library/SpringBoard/IconState.plist")?.flags == 1)
            // Never stored: caches, tmp, SystemData, container metadata, bundles, DeviceLocal.
            for row in report.rows {
                #expect(!row.path.contains("Caches") && !row.path.hasPrefix("tmp") && !row.path.hasPrefix("SystemData"))
                #expect(!row.path.contains(".com.apple.mobile_container_manager") && !row.path.contains("DeviceLocal"))
                #expect(!row.path.hasPrefix("Containers"))
            }
            // Every document, byte for byte; the hard link as a file of its own; the attribute by its iOS name.
            let app = "AppDomain-\(Self.news)"
            for name in ["sub/a.txt", "empty", "Résumé 📱.txt", "hard.txt"] {
                let row = try #require(report.row(app, "Documents/" + name), "Documents/\(name)")
                let source = try MobileSyncCheck.sha256(of: data + "/Documents/" + name)
                #expect(row.flags == 1 && row.sha256 == source, "Documents/\(name)")
            }
            #expect(report.row(app, "Documents/sub/a.txt")?.attributes["test.attr"] == "6869")
            let link = try #require(report.row(app, "Documents/link"))
            #expect(link.flags == 4 && link.target == "/var/mobile/" + data.dropFirst(root.count + 1) + "/Library/Preferences")
        }
    }

    /// A container no metadata names, and a directory under Containers/ that is no container: left out, each named
    /// once in a warning; the rest is stored.
    @Test func whatNoDomainHoldsIsLeftOutWithAWarning() throws {
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone", backup = scratch + "/backup"
            try NudgeFixture.phone(root)
            try BackupCheck.sh(
                """
                mkdir -p "$1/Containers/Data/Application/NOMETA/Documents" "$1/Containers/Other/deep"
                echo x > "$1/Containers/Data/Application/NOMETA/Documents/a"; echo y > "$1/Containers/Other/deep/b"
                """, root)
            let result = try BackupCheck.devicectl(["backup", root, "--format", "mobilesync", "-o", backup])
            #expect(result.status == 0, "\(result.stderr)")
            for top in ["Containers/Data/Application/NOMETA", "Containers/Other"] {
                let warning = "\(top): not in any backup domain (no container metadata names it); not stored"
                #expect(result.stderr.components(separatedBy: warning).count == 2, "\(result.stderr)")
            }
            let report = try MobileSyncCheck.read(backup)
            #expect(report.problems == [])
            #expect(!report.rows.contains { $0.path.hasSuffix("Documents/a") || $0.path.hasSuffix("deep/b") })
            #expect(report.row("HomeDomain", "Library/SpringBoard/IconState.plist") != nil)
        }
    }

    /// A backup written inside the tree it backs up never stores itself, nor the backup it replaces.
    @Test func aBackupInsideItsOwnTreeIsNeverStored() throws {
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone", backup = scratch + "/phone/Library/backup"
            try NudgeFixture.phone(root)
            for _ in 0..<2 {
                let result = try BackupCheck.devicectl(["backup", root, "--format", "mobilesync", "-o", backup])
                #expect(result.status == 0, "\(result.stderr)")
                let report = try MobileSyncCheck.read(backup)
                #expect(report.problems == [])
                #expect(!report.rows.contains { $0.path.hasPrefix("Library/backup") || $0.path.contains("devicectl-tmp") })
            }
            #expect(try directoryNames(in: root + "/Library") == ["SpringBoard", "backup"])
        }
    }

    @Test func theFormatIsADirectoryNeverAStreamNorCompressed() throws {
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone"
            try NudgeFixture.phone(root)
            for (arguments, message) in [
                (["-o", "-"], "give -o DIR, not -o -"),
                (["-o", scratch + "/b", "--compression", "gzip"], "--compression and --level go with --format tar"),
                (["-o", scratch + "/b", "--level", "3"], "--compression and --level go with --format tar"),
            ] {
                let result = try BackupCheck.devicectl(["backup", root, "--format", "mobilesync"] + arguments)
                #expect(result.status == 64 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
            }
            let unknown = try BackupCheck.devicectl(["backup", root, "--format", "zip", "-o", scratch + "/b"])
            #expect(unknown.status == 64 && unknown.stderr.contains("tar or mobilesync"), "\(unknown.stderr)")
            // A plain directory has no containers to make domains of.
            let plain = try BackupCheck.devicectl(["backup", scratch, "--format", "mobilesync", "-o", scratch + "/b"])
            #expect(plain.status == 1 && plain.stderr.contains("it is not a device root"), "\(plain.stderr)")
            #expect(try directoryNames(in: scratch) == ["phone"])
        }
    }

    @Test func anExistingDirectoryIsReplacedOnlyWhenItIsABackup() throws {
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone", backup = scratch + "/backup"
            try NudgeFixture.phone(root)
            // A directory of the user's: left as it is.
            try FileManager.default.createDirectory(atPath: backup, withIntermediateDirectories: true)
            try Data("mine".utf8).write(to: URL(fileURLWithPath: backup + "/notes.txt"))
            let refused = try BackupCheck.devicectl(["backup", root, "--format", "mobilesync", "-o", backup])
            #expect(refused.status == 1 && refused.stderr.contains("holds no MobileSync backup"), "\(refused.stderr)")
            #expect(try directoryNames(in: backup) == ["notes.txt"])
            #expect(try directoryNames(in: scratch) == ["backup", "phone"])
            // A file: refused too.
            let file = scratch + "/file"
            try Data("x".utf8).write(to: URL(fileURLWithPath: file))
            let notDirectory = try BackupCheck.devicectl(["backup", root, "--format", "mobilesync", "-o", file])
            #expect(notDirectory.status == 1 && notDirectory.stderr.contains("not a directory"), "\(notDirectory.stderr)")
            // An empty directory, then a backup: replaced whole, nothing left beside it.
            try FileManager.default.removeItem(atPath: backup + "/notes.txt")
            for _ in 0..<2 {
                let made = try BackupCheck.devicectl(["backup", root, "--format", "mobilesync", "-o", backup])
                #expect(made.status == 0, "\(made.stderr)")
                #expect(try MobileSyncCheck.read(backup).problems == [])
                #expect(try directoryNames(in: scratch) == ["backup", "file", "phone"])
            }
        }
    }

    @Test func theComputerEngineIsTheDefaultAndJSONNamesTheFormat() throws {
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone", backup = scratch + "/backup"
            let data = try Self.phone(root)
            // Flagged excluded from unencrypted computer backups only.
            try BackupCheck.sh(
                "setfattr -n 'user.com.apple.metadata:com_apple_unencryptedBackup_excludeItem' -v x \"$1/Documents/empty\"",
                data)
            let dry = try BackupCheck.devicectl(["backup", root, "--format", "mobilesync", "-o", backup, "--dry-run", "--json"])
            let plan = try #require(try JSONSerialization.jsonObject(with: dry.stdoutData) as? [String: Any])
            #expect(plan["format"] as? String == "mobilesync" && plan["engine"] as? String == "computer")
            #expect(!FileManager.default.fileExists(atPath: backup))
            let run = try BackupCheck.devicectl(["backup", root, "--format", "mobilesync", "-o", backup, "--json"])
            let result = try #require(try JSONSerialization.jsonObject(with: run.stdoutData) as? [String: Any])
            #expect(result["format"] as? String == "mobilesync" && result["engine"] as? String == "computer")
            #expect(result["archive"] as? String == backup)
            let report = try MobileSyncCheck.read(backup)
            #expect(report.row("AppDomain-\(Self.news)", "Documents/empty") == nil)
            // The counts are of what the backup holds: its rows (hard links as files), not every member walked.
            let counts = try #require(result["counts"] as? [String: Any])
            #expect(counts["files"] as? Int == report.rows.filter { $0.flags == 1 }.count)
            #expect(counts["bytes"] as? Int == report.rows.filter { $0.flags == 1 }.map(\.size).reduce(0, +))
            #expect(counts["directories"] as? Int == report.rows.filter { $0.flags == 2 }.count)
            #expect(counts["symlinks"] as? Int == 1 && counts["hardlinks"] as? Int == 0)
            let encrypted = try BackupCheck.devicectl(
                ["backup", root, "--format", "mobilesync", "-o", backup, "--engine", "computer-encrypted", "-q"])
            #expect(encrypted.status == 0, "\(encrypted.stderr)")
            #expect(try MobileSyncCheck.read(backup).row("AppDomain-\(Self.news)", "Documents/empty") != nil)
        }
    }
}
