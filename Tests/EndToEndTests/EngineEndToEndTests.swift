// EngineEndToEndTests: `--engine` through the binary: exclude add --cloud-only / --unencrypted-only and remove,
// exclude check per engine (text and JSON), backup and its dry run naming the engine, list reading it back, the
// device's Library/Preferences exception, and restore keeping a path the new device flags.
import Foundation
import TestSupport
import Testing

@Suite struct EngineEndToEndTests {
    static let cloudAttribute = "user.com.apple.metadata:com_apple_cloudBackup_excludeItem"
    static let unencryptedAttribute = "user.com.apple.metadata:com_apple_unencryptedBackup_excludeItem"

    /// The value of attribute `name` on `path` in hex, or nil when absent.
    static func hex(_ name: String, _ path: String) throws -> String? {
        let result = try Shell.run("getfattr", ["-e", "hex", "-n", name, "--absolute-names", path])
        guard result.status == 0 else { return nil }
        return result.stdout.split(separator: "\n").first { $0.hasPrefix(name + "=0x") }.map {
            String($0.dropFirst(name.count + 3))
        }
    }

    @Test func addSetsTheEngineSpecificAttributesAndRemoveClearsThem() throws {
        try withTemporaryDirectory { dir in
            let phone = PhoneScratch(dir: dir)
            try BackupCheck.sh("printf a > \"$1/cloud\"; printf a > \"$1/local\"", dir)
            let cloud = try phone.ok(["exclude", "add", "--cloud-only", "\(dir)/cloud"])
            #expect(cloud.stdout == "\(dir)/cloud: excluded from iCloud backups (engine icloud)\n")
            let local = try phone.ok(["exclude", "add", "--unencrypted-only", "\(dir)/local"])
            #expect(local.stdout == "\(dir)/local: excluded from unencrypted computer backups (engine computer)\n")
            // The same bytes as the general flag (presence is what counts), on its own attribute only.
            #expect(try Self.hex(Self.cloudAttribute, "\(dir)/cloud") == PhoneScratch.exclusionHex)
            #expect(try Self.hex(Self.unencryptedAttribute, "\(dir)/local") == PhoneScratch.exclusionHex)
            #expect(try PhoneScratch.exclusionHex("\(dir)/cloud") == nil)
            #expect(try Self.hex(Self.unencryptedAttribute, "\(dir)/cloud") == nil)
            try phone.fails(
                ["exclude", "add", "--cloud-only", "--unencrypted-only", "\(dir)/cloud"], status: 64,
                mentioning: ["--cloud-only and --unencrypted-only"])

            let removed = try phone.ok(["exclude", "remove", "\(dir)/cloud", "\(dir)/local"])
            #expect(
                removed.stdout
                    == "\(dir)/cloud: no longer excluded from backup\n\(dir)/local: no longer excluded from backup\n")
            #expect(try Self.hex(Self.cloudAttribute, "\(dir)/cloud") == nil)
            #expect(try Self.hex(Self.unencryptedAttribute, "\(dir)/local") == nil)
        }
    }

    @Test func checkAnswersPerEngineInTextAndJSON() throws {
        try withTemporaryDirectory { dir in
            let phone = PhoneScratch(dir: dir)
            try BackupCheck.sh("printf a > \"$1/cloud\"; printf a > \"$1/local\"; printf a > \"$1/all\"", dir)
            try phone.ok(["exclude", "add", "--cloud-only", "\(dir)/cloud"])
            try phone.ok(["exclude", "add", "--unencrypted-only", "\(dir)/local"])
            try phone.ok(["exclude", "add", "\(dir)/all"])
            let paths = ["cloud", "local", "all"].map { "\(dir)/\($0)" }
            let every = try phone.ok(["exclude", "check"] + paths)
            #expect(every.stdout.split(separator: "\n").map(String.init) == [
                "\(dir)/cloud: excluded from icloud (apple-cloud-exclude-xattr); "
                    + "included in computer, computer-encrypted, quick-start",
                "\(dir)/local: included in icloud, computer-encrypted, quick-start; "
                    + "excluded from computer (apple-unencrypted-exclude-xattr)",
                "\(dir)/all: excluded (apple-exclude-xattr)",
            ])
            let computer = try phone.ok(["exclude", "check", "--engine", "computer"] + paths)
            #expect(computer.stdout == """
                \(dir)/cloud: included
                \(dir)/local: excluded (apple-unencrypted-exclude-xattr)
                \(dir)/all: excluded (apple-exclude-xattr)

                """)
            let json = try PhoneScratch.json(try phone.ok(["exclude", "check", "--json", "\(dir)/cloud"]))
            let entry = try #require((json["paths"] as? [[String: Any]])?.first)
            #expect(entry["engine"] as? String == "icloud")
            #expect(entry["excluded"] as? Bool == true)
            let engines = try #require(entry["engines"] as? [String: [String: Any]])
            #expect(engines.keys.sorted() == ["computer", "computer-encrypted", "icloud", "quick-start"])
            #expect(engines["icloud"]?["reasons"] as? [String] == ["apple-cloud-exclude-xattr"])
            #expect(engines["quick-start"]?["excluded"] as? Bool == false)
            let given = try PhoneScratch.json(
                try phone.ok(["exclude", "check", "--json", "--engine", "quick-start", "\(dir)/cloud"]))
            let one = try #require((given["paths"] as? [[String: Any]])?.first)
            #expect(one["engine"] as? String == "quick-start" && one["excluded"] as? Bool == false)
            #expect(one["engines"] is NSNull)
            try phone.fails(
                ["exclude", "check", "--engine", "floppy", "\(dir)/cloud"], status: 64, mentioning: ["--engine"])
        }
    }

    /// The device's own Library/Preferences ignores the general flag (the backup agent backs it up anyway);
    /// an app's Library/Preferences does not.
    @Test func theDevicesPreferencesAreBackedUpDespiteTheGeneralFlag() throws {
        try withTemporaryDirectory { dir in
            let phone = try BackupDeviceEndToEndTests.phone(dir)
            let data = try phone.containerPath("Containers/Data/Application", "com.example.news")
            let system = "\(phone.root)/Library/Preferences/com.apple.springboard.plist"
            let app = "\(data)/Library/Preferences/flagged.plist"
            try BackupCheck.sh("mkdir -p \"$(dirname \"$1\")\"; printf s > \"$1\"; printf a > \"$2\"", system, app)
            try phone.ok(["exclude", "add", system, app])
            let check = try phone.ok(["exclude", "check", system, app])
            #expect(check.stdout == "\(system): included\n\(app): excluded (apple-exclude-xattr)\n")
            for engine in ["icloud", "computer", "computer-encrypted", "quick-start"] {
                let archive = "\(dir)/\(engine).tar"
                try phone.ok(["backup", phone.root, "-o", archive, "--engine", engine])
                let members = try TarTool.members(archive)
                #expect(members.contains("Library/Preferences/com.apple.springboard.plist"), "\(engine)")
                #expect(!members.contains { $0.hasSuffix("/flagged.plist") }, "\(engine)")
            }
        }
    }

    @Test func backupDryRunAndListNameTheEngine() throws {
        try withTemporaryDirectory { dir in
            let phone = try BackupDeviceEndToEndTests.phone(dir)
            let group = try phone.containerPath("Containers/Shared/AppGroup", "group.com.example.news")
            let marker = "\(group)/device-restoration-marker.txt"
            try phone.ok(["exclude", "add", "--unencrypted-only", marker])
            let relative = String(marker.dropFirst(phone.root.count + 1))

            let dry = try phone.ok(["backup", phone.root, "--dry-run", "--engine", "computer"])
            #expect(dry.stdout.contains("\(relative)  (apple-unencrypted-exclude-xattr)\n"), "\(dry.stdout)")
            #expect(dry.stderr.contains("dry run of \(phone.root) (engine computer): "), "\(dry.stderr)")
            let cloudDry = try phone.ok(["backup", phone.root, "--dry-run"])
            #expect(!cloudDry.stdout.contains(relative), "icloud ignores the unencrypted-only flag")
            let dryJSON = try PhoneScratch.json(
                try phone.ok(["backup", phone.root, "--dry-run", "--json", "--engine", "quick-start"]))
            #expect(dryJSON["engine"] as? String == "quick-start")

            let archive = "\(dir)/computer.tar"
            let made = try PhoneScratch.json(
                try phone.ok(["backup", phone.root, "-o", archive, "--engine", "computer", "--json"]))
            #expect(made["engine"] as? String == "computer")
            #expect(!(try TarTool.members(archive)).contains(relative))
            let header = try #require(try TarTool.manifest(archive).first)
            #expect(header["engine"] as? String == "computer")
            let list = try phone.ok(["list", archive])
            #expect(list.stdout.contains("\n  engine: computer\n"), "\(list.stdout)")
            let listed = try PhoneScratch.json(try phone.ok(["list", archive, "--json"]))
            let manifest = try #require(listed["manifest"] as? [String: Any])
            #expect(manifest["engine"] as? String == "computer" && manifest["engineRecorded"] as? Bool == true)
            let byReason = try #require(
                ((manifest["excluded"] as? [String: Any])?["byReason"]) as? [String: [String: Any]])
            #expect(byReason["apple-unencrypted-exclude-xattr"]?["entries"] as? Int == 1, "\(byReason)")
            try phone.fails(
                ["backup", phone.root, "-o", "\(dir)/x.tar", "--engine", "cloud"], status: 64, mentioning: ["--engine"])
            #expect(!FileManager.default.fileExists(atPath: "\(dir)/x.tar"))
        }
    }

    /// A path the new phone flags is not restored over: named in the summary and the JSON, the device's own
    /// directory and flag kept, everything else restored.
    @Test func restoreKeepsAPathTheNewDeviceFlags() throws {
        try withTemporaryDirectory { dir in
            let phone = try BackupDeviceEndToEndTests.phone(dir)
            try BackupCheck.sh("mkdir -p \"$1/Media/DCIM\"; printf jpeg > \"$1/Media/DCIM/IMG_0001.JPG\"", phone.root)
            let archive = "\(dir)/phone.tar"
            try phone.ok(["backup", phone.root, "-o", archive])
            let new = "\(dir)/new"
            try phone.ok(["init", new])
            try BackupCheck.sh("mkdir \"$1/Media\"", new)
            try phone.ok(["exclude", "add", "\(new)/Media"])
            let restored = try phone.ok(["restore", archive, new])
            #expect(
                restored.stderr.contains(
                    "  skipped Media: this device marks it excluded from backup (apple-exclude-xattr); kept as it was, "
                        + "3 archive entries not restored\n"), "\(restored.stderr)")
            #expect(!FileManager.default.fileExists(atPath: "\(new)/Media/DCIM"))
            #expect(try PhoneScratch.exclusionHex("\(new)/Media") == PhoneScratch.exclusionHex)
            #expect(FileManager.default.fileExists(atPath: "\(new)/Library/SpringBoard/IconState.plist"))

            let again = "\(dir)/again"
            try phone.ok(["init", again])
            try BackupCheck.sh("mkdir \"$1/Media\"", again)
            try phone.ok(["exclude", "add", "\(again)/Media"])
            let json = try PhoneScratch.json(try phone.ok(["restore", archive, again, "--json"]))
            let skipped = try #require(json["skipped"] as? [[String: Any]])
            #expect(skipped.count == 1)
            #expect(skipped.first?["path"] as? String == "Media")
            #expect(skipped.first?["reason"] as? String == "apple-exclude-xattr")
            #expect(skipped.first?["entries"] as? Int == 3)
            #expect(json["engine"] as? String == "icloud")
        }
    }
}
