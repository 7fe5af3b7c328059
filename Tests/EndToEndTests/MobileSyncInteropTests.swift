// MobileSyncInteropTests: pyiosbackup and iOSbackup (PyPI; each with its own Manifest.db, NSKeyedArchiver and plist
// code: independent implementations) list and extract devicectl's MobileSync backups byte for byte, and leave them
// unchanged. `make test` installs them into a venv (`make oracles`); DEVICECTL_ORACLES names another venv.
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct MobileSyncInteropTests {
    /// The oracle venv's python: $DEVICECTL_ORACLES/bin/python, else the package's .build/oracles.
    static var python: String {
        if let venv = ProcessInfo.processInfo.environment["DEVICECTL_ORACLES"] { return venv + "/bin/python" }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return package.appendingPathComponent(".build/oracles/bin/python").path
    }

    static let reader = #"""
        import json, sys
        from pyiosbackup import Backup
        backup = Backup.from_path(sys.argv[1])
        entries = [[e.domain, e.relative_path, e.mode, e.size] for e in backup.iter_entries()]
        backup.unback(sys.argv[2])
        print(json.dumps({'entries': entries, 'udid': backup.target_identifier, 'apps': backup.installed_apps,
                          'version': str(backup.ios_version)}))
        """#

    struct Listing: Decodable {
        let entries: [[Value]]
        let udid: String
        let apps: [String]
        let version: String

        enum Value: Decodable, Hashable {
            case text(String), number(Int)
            init(from decoder: Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let number = try? container.decode(Int.self) { self = .number(number) } else {
                    self = .text(try container.decode(String.self))
                }
            }
        }
    }

    @Test func pyiosbackupListsAndExtractsEveryFileByteForByte() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.python),
            "no pyiosbackup venv at \(Self.python): run 'make oracles' (make test does)")
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone", backup = scratch + "/backup", out = scratch + "/out"
            let data = try MobileSyncBackupEndToEndTests.phone(root)
            let made = try BackupCheck.devicectl(["backup", root, "--format", "mobilesync", "-o", backup, "-q"])
            #expect(made.status == 0, "\(made.stderr)")
            let before = try TreeSnapshot.take(backup)
            let run = try Shell.run(Self.python, ["-c", Self.reader, backup, out])
            try #require(run.status == 0, "pyiosbackup: \(run.stderr)")
            let listing = try JSONDecoder().decode(Listing.self, from: run.stdoutData)
            // The backup is unchanged: no -wal/-shm left, no row rewritten.
            #expect(try TreeSnapshot.take(backup) == before)
            #expect(listing.udid == (try Device.open(root).identity().udid) && listing.apps == [NudgeFixture.news])
            // pyiosbackup lists what Python's standard library reads from Manifest.db, row for row.
            let report = try MobileSyncCheck.read(backup)
            let expected = Set(report.rows.map { [Listing.Value.text($0.domain), .text($0.path), .number($0.mode), .number($0.size)] })
            #expect(Set(listing.entries) == expected)
            // Extracted (domain/relativePath): every document and the App Group's flag plist, byte for byte.
            let app = "\(out)/AppDomain-\(NudgeFixture.news)/Documents/"
            for name in ["sub/a.txt", "empty", "Résumé 📱.txt", "hard.txt"] {
                #expect(
                    try MobileSyncCheck.sha256(of: app + name)
                        == (try MobileSyncCheck.sha256(of: data + "/Documents/" + name)), "\(name)")
            }
            let group = "\(out)/AppDomainGroup-\(MobileSyncBackupEndToEndTests.group)/Library/Preferences/"
                + "\(MobileSyncBackupEndToEndTests.group).plist"
            #expect(try MobileSyncCheck.sha256(of: group) == (try MobileSyncCheck.sha256(of: NudgeFixture.suitePath(root))))
            #expect(
                try MobileSyncCheck.sha256(of: out + "/HomeDomain/Library/SpringBoard/IconState.plist")
                    == (try MobileSyncCheck.sha256(of: root + "/Library/SpringBoard/IconState.plist")))
        }
    }

    static let iOSbackupReader = #"""
        import json, os, sys
        from iOSbackup import iOSbackup
        top, out = sys.argv[1], sys.argv[2]
        backup = iOSbackup(udid=os.path.basename(top), backuproot=os.path.dirname(top))
        entries = [[f['domain'], f['name'], f['flags']] for f in backup.getBackupFilesList()]
        copies = {}
        for path in sys.argv[3:]:
            copies[path] = backup.getFileDecryptedCopy(relativePath=path, targetFolder=out)['decryptedFilePath']
        print(json.dumps({'entries': entries, 'copies': copies, 'udid': backup.manifest['Lockdown']['UniqueDeviceID']}))
        """#

    struct IOSbackupListing: Decodable {
        let entries: [[Listing.Value]]
        let copies: [String: String]
        let udid: String
    }

    @Test func iOSbackupListsEveryRowAndExtractsTheFlagAndTheHomeScreen() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: Self.python),
            "no oracle venv at \(Self.python): run 'make oracles' (make test does)")
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone", backup = scratch + "/backups/UDID", out = scratch + "/out"
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: scratch + "/backups", withIntermediateDirectories: true)
            _ = try MobileSyncBackupEndToEndTests.phone(root)
            let made = try BackupCheck.devicectl(["backup", root, "--format", "mobilesync", "-o", backup, "-q"])
            #expect(made.status == 0, "\(made.stderr)")
            let before = try TreeSnapshot.take(backup)
            let group = MobileSyncBackupEndToEndTests.group
            let flag = "Library/Preferences/\(group).plist", home = "Library/SpringBoard/IconState.plist"
            let run = try Shell.run(Self.python, ["-c", Self.iOSbackupReader, backup, out, flag, home], directory: scratch)
            try #require(run.status == 0, "iOSbackup: \(run.stderr)")
            let listing = try JSONDecoder().decode(IOSbackupListing.self, from: run.stdoutData)
            #expect(try TreeSnapshot.take(backup) == before)
            #expect(listing.udid == (try Device.open(root).identity().udid))
            let report = try MobileSyncCheck.read(backup)
            #expect(Set(listing.entries) == Set(report.rows.map { [.text($0.domain), .text($0.path), .number($0.flags)] }))
            #expect(
                try MobileSyncCheck.sha256(of: try #require(listing.copies[flag]))
                    == (try MobileSyncCheck.sha256(of: NudgeFixture.suitePath(root))))
            #expect(
                try MobileSyncCheck.sha256(of: try #require(listing.copies[home]))
                    == (try MobileSyncCheck.sha256(of: root + "/" + home)))
        }
    }
}
