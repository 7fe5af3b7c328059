// MobileSyncMvtTests: mvt (the Mobile Verification Toolkit, PyPI: its own Manifest.db and MBFile reading, its own
// decryption code) checks devicectl's MobileSync backups row for row, and decrypts its encrypted ones into a copy
// devicectl verifies and restores. `make test` installs it into a venv of its own (`make oracles`); DEVICECTL_MVT
// names another `mvt-ios`.
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct MobileSyncMvtTests {
    /// $DEVICECTL_MVT, else the package's .build/oracles-mvt/bin/mvt-ios.
    static var mvt: String {
        if let tool = ProcessInfo.processInfo.environment["DEVICECTL_MVT"] { return tool }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return package.appendingPathComponent(".build/oracles-mvt/bin/mvt-ios").path
    }

    /// Runs `mvt-ios` offline (no update checks) with its home in `scratch`.
    static func run(_ arguments: [String], in scratch: String, environment: [String: String] = [:]) throws -> RunResult {
        try #require(
            FileManager.default.isExecutableFile(atPath: mvt), "no mvt at \(mvt): run 'make oracles' (make test does)")
        let home = scratch + "/mvt-home"
        try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
        return try Shell.run(
            mvt, ["--disable-update-check", "--disable-indicator-update-check"] + arguments,
            environment: environment.merging(["HOME": home, "XDG_CONFIG_HOME": home, "XDG_DATA_HOME": home]) { $1 },
            directory: scratch)
    }

    /// A file of mvt's results, as JSON.
    static func results(_ path: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Every row as mvt's Manifest module reads it: domain, path, flags, mode, size, owner, modification time (seconds).
    static func mvtRows(_ output: String) throws -> Set<String> {
        let rows = try #require(try results(output + "/manifest.json") as? [[String: Any]])
        return Set(rows.map { row in
            #expect(row["missing"] == nil, "mvt: \(row) is missing from the backup")
            let modified = (row["modified"] as? String).map { String($0.prefix(19)) } ?? "none"
            return [
                row["domain"], row["relative_path"], row["flags"], row["mode"], row["size"], row["owner"], modified,
            ].map { "\($0 ?? "none")" }.joined(separator: "|")
        })
    }

    /// The same fields from devicectl's own reading (`list --json`) and Python's standard library (full modes).
    static func devicectlRows(_ backup: String, environment: [String: String] = [:]) throws -> Set<String> {
        let listed = try BackupCheck.devicectl(["list", backup, "--json"], environment: environment)
        try #require(listed.status == 0, "\(listed.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: listed.stdoutData) as? [String: Any])
        let members = try #require(object["members"] as? [[String: Any]])
        var modes: [String: Int] = [:]
        if environment.isEmpty {
            for row in try MobileSyncCheck.read(backup).rows { modes[row.domain + "|" + row.path] = row.mode }
        }
        return Set(try members.map { member in
            let domain = try #require(member["domain"] as? String), path = try #require(member["path"] as? String)
            let type = try #require(member["type"] as? String)
            let flags = ["file": 1, "directory": 2, "symlink": 4][type] ?? 0
            let kind = ["file": 0o100000, "directory": 0o040000, "symlink": 0o120000][type] ?? 0
            let octal = try #require(member["mode"] as? String)
            let permissions = try #require(Int(octal, radix: 8))
            let mode = modes[domain + "|" + path] ?? (kind | permissions)
            let mtime = (try #require(member["mtime"] as? String)).replacingOccurrences(of: "T", with: " ")
                .replacingOccurrences(of: "Z", with: "")
            return [
                domain, path, "\(flags)", "0o" + String(mode, radix: 8), "\(try #require(member["size"] as? Int))",
                "\(try #require(member["uid"] as? Int))", mtime,
            ].joined(separator: "|")
        })
    }

    /// `mvt-ios check-backup` reads every row's record (mode, size, owner, times) as devicectl wrote it, finds every
    /// file's content file, reads the device, its iOS version and apps from the plists, and changes nothing.
    @Test func mvtChecksEveryRowOfAPlainBackup() throws {
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone", backup = scratch + "/backup", output = scratch + "/results"
            let data = try MobileSyncBackupEndToEndTests.phone(root)
            // A time and a mode of their own, that mvt must read from the records as written.
            try BackupCheck.sh(
                "cd \"$1\" && chmod 600 Documents/empty && touch -d '2021-03-04 05:06:07 UTC' Documents/sub/a.txt", data)
            let made = try BackupCheck.devicectl(["backup", root, "--format", "mobilesync", "-o", backup, "-q"])
            try #require(made.status == 0, "\(made.stderr)")
            let before = try TreeSnapshot.take(backup)
            let run = try Self.run(["check-backup", "--output", output, backup], in: scratch)
            try #require(run.status == 0, "mvt: \(run.stderr)")
            #expect(try TreeSnapshot.take(backup) == before)
            let log = try String(contentsOfFile: output + "/command.log", encoding: .utf8)
            #expect(!log.contains("Error reading manifest file metadata"), "\(log)")
            #expect(log.contains("Extracted a total of"), "\(log)")
            let rows = try Self.mvtRows(output)
            #expect(rows == (try Self.devicectlRows(backup)))
            #expect(rows.contains { $0.hasSuffix("|Documents/sub/a.txt|1|0o100644|6|501|2021-03-04 05:06:07") })
            #expect(rows.contains { $0.contains("|Documents/empty|1|0o100600|0|501|") })
            #expect(rows.contains { $0.contains("|Documents/link|4|0o120") })
            let info = try #require(try Self.results(output + "/backup_info.json") as? [String: Any])
            #expect(info["Unique Identifier"] as? String == (try Device.open(root).identity().udid))
            #expect(info["Installed Applications"] as? [String] == [NudgeFixture.news])
            #expect((info["Product Version"] as? String)?.compare("10.2", options: .numeric) == .orderedDescending)
        }
    }

    /// `mvt-ios decrypt-backup` decrypts devicectl's encrypted backup with its own code (a wrong password refused);
    /// the plain copy it writes is intact for devicectl, lists the same rows for mvt and devicectl, and restores onto
    /// a new device with the documents, the App Group's flag and the home screen byte for byte and the marker absent.
    @Test func mvtDecryptsAnEncryptedBackupIntoACopyDevicectlRestores() throws {
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone", encrypted = scratch + "/encrypted", copy = scratch + "/decrypted"
            let data = try MobileSyncBackupEndToEndTests.phone(root)
            try MobileSyncEncryptedEndToEndTests.backUp(root, to: encrypted)
            let before = try TreeSnapshot.take(encrypted)
            let wrong = try Self.run(
                ["decrypt-backup", "-d", scratch + "/wrong", encrypted], in: scratch,
                environment: ["MVT_IOS_BACKUP_PASSWORD": "not " + MobileSyncEncryptedEndToEndTests.password])
            #expect(wrong.status != 0 && !FileManager.default.fileExists(atPath: scratch + "/wrong"))
            let run = try Self.run(
                ["decrypt-backup", "-d", copy, encrypted], in: scratch,
                environment: ["MVT_IOS_BACKUP_PASSWORD": MobileSyncEncryptedEndToEndTests.password])
            try #require(run.status == 0, "mvt: \(run.stderr)")
            #expect(try TreeSnapshot.take(encrypted) == before)
            let verified = try BackupCheck.devicectl(["verify", copy])
            #expect(verified.status == 0 && verified.stderr.contains("is intact"), "\(verified.stderr)")
            // mvt reads its copy's rows as devicectl reads the encrypted original.
            let checked = try Self.run(["check-backup", "--output", scratch + "/results", copy], in: scratch)
            try #require(checked.status == 0, "mvt: \(checked.stderr)")
            #expect(
                try Self.mvtRows(scratch + "/results")
                    == (try Self.devicectlRows(
                        encrypted, environment: ["DEVICECTL_BACKUP_PASSWORD": MobileSyncEncryptedEndToEndTests.password])))
            let restored = scratch + "/new"
            let result = try BackupCheck.devicectl(["restore", copy, restored, "-q"])
            try #require(result.status == 0, "\(result.stderr)")
            let device = try Device.open(restored)
            let newData = try #require(try device.container(.data, identifier: NudgeFixture.news)).path
            for name in MobileSyncEncryptedEndToEndTests.documents {
                #expect(
                    try MobileSyncCheck.sha256(of: newData + "/Documents/" + name)
                        == (try MobileSyncCheck.sha256(of: data + "/Documents/" + name)), "\(name)")
            }
            #expect(
                try MobileSyncCheck.sha256(of: NudgeFixture.suitePath(restored))
                    == (try MobileSyncCheck.sha256(of: NudgeFixture.suitePath(root))))
            #expect(
                try MobileSyncCheck.sha256(of: restored + "/Library/SpringBoard/IconState.plist")
                    == (try MobileSyncCheck.sha256(of: root + "/Library/SpringBoard/IconState.plist")))
            #expect(!FileManager.default.fileExists(atPath: try NudgeFixture.markerPath(restored)))
        }
    }
}
