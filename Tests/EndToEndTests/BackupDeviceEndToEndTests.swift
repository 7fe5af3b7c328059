// BackupDeviceEndToEndTests: a device root made by `devicectl init`/`install` is backed up with the iOS
// rules (no app bundles, no Caches/tmp of any container, no DeviceLocal), the manifest records what
// a restore must reinstall, and archives are reproducible whichever way they are written.
import Foundation
import SystemKit
import TestSupport
import Testing

@Suite struct BackupDeviceEndToEndTests {
    /// A device with two apps, one widget placed, and files in every kind of place.
    static func phone(_ dir: String) throws -> PhoneScratch {
        let phone = PhoneScratch(dir: dir)
        try phone.ok(["init", phone.root])
        try phone.install()
        try phone.install("com.example.mail", ["--no-widget"])
        try phone.ok(["widget", "add", phone.root, "--app", "com.example.news"])
        let data = try phone.containerPath("Containers/Data/Application", "com.example.news")
        let plugin = try phone.containerPath("Containers/Data/PluginKitPlugin", "com.example.news.NudgeWidget")
        let group = try phone.containerPath("Containers/Shared/AppGroup", "group.com.example.news")
        try BackupCheck.sh(
            """
            set -e
            printf article > "$1/Documents/article.txt"
            head -c 5000 /dev/urandom > "$1/Library/Caches/image.bin"
            printf partial > "$1/tmp/upload.part"
            printf timeline > "$2/Library/Caches/timeline.bin"
            printf t > "$2/tmp/scratch"
            mkdir -p "$3/Library/Caches"; printf shared > "$3/Library/Caches/shared.bin"
            printf marker > "$3/device-restoration-marker.txt"
            """, data, plugin, group)
        return phone
    }

    @Test func iOSRulesApplyAndTheManifestRecordsTheDevice() throws {
        try withTemporaryDirectory { dir in
            let phone = try Self.phone(dir)
            let archive = "\(dir)/phone.tar"
            let result = try BackupCheck.devicectl(["backup", phone.root, "-o", archive, "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.isEmpty, "\(result.stderr)")
            let members = try TarTool.members(archive)
            #expect(try TarTool.members(archive, tool: "bsdtar") == members)
            let news = try phone.containers("Containers/Data/Application")["com.example.news"]!
            let plugin = try phone.containers("Containers/Data/PluginKitPlugin")["com.example.news.NudgeWidget"]!
            let group = try phone.containers("Containers/Shared/AppGroup")["group.com.example.news"]!
            for kept in [
                "Containers/Bundle/Application/", "Library/SpringBoard/IconState.plist",
                "Containers/Data/Application/\(news)/Documents/article.txt",
                "Containers/Data/Application/\(news)/Library/Preferences/",
                "Containers/Data/PluginKitPlugin/\(plugin)/Documents/",
                "Containers/Shared/AppGroup/\(group)/device-restoration-marker.txt",
            ] {
                #expect(members.contains(kept), "missing \(kept)")
            }
            for member in members {
                #expect(!member.hasPrefix("DeviceLocal"), "\(member)")
                #expect(!member.hasPrefix("Containers/Bundle/Application/") || member == "Containers/Bundle/Application/")
                // Every container's Caches, App Groups' too (an App Group is backed up as AppDomainGroup-<id>,
                // which holds no Library/Caches in a real backup).
                #expect(!member.contains("/Library/Caches"), "\(member)")
                #expect(!member.hasSuffix("/tmp/") && !member.contains("/tmp/"), "\(member)")
            }

            let lines = try TarTool.manifest(archive)
            let header = try #require(lines.first)
            let identity = try PhoneScratch.plistDictionary("\(phone.root)/DeviceLocal/identity.plist")
            #expect(header["kind"] as? String == "header")
            #expect(header["format"] as? String == "devicectl-backup")
            #expect(header["formatVersion"] as? Int == 1)
            #expect((header["tool"] as? String)?.hasPrefix("devicectl ") == true)
            #expect(header["created"] as? String == BackupCheck.now)
            #expect((header["source"] as? [String: Any])?["udid"] as? String == identity["UDID"] as? String)
            let apps = try #require(header["apps"] as? [[String: Any]])
            #expect(apps.map { $0["bundleId"] as? String } == ["com.example.mail", "com.example.news"])
            #expect(apps[0]["widget"] is NSNull)
            #expect(apps[1]["groups"] as? [String] == ["group.com.example.news"])
            #expect((apps[1]["widget"] as? [String: Any])?["flagKey"] as? String == "notificationEnabled")
            #expect(header["groups"] as? [String] == ["group.com.example.news"])
            #expect((header["widgets"] as? [[String: String]]) == [["app": "com.example.news"]])
            let totals = try #require(lines.first { $0["kind"] as? String == "totals" })
            #expect(lines.last?["kind"] as? String == "members", "the members line comes last")
            let byReason = try #require((totals["excluded"] as? [String: Any])?["byReason"] as? [String: [String: Int]])
            #expect(byReason["device-local"]?["files"] == 1)
            #expect(byReason["ios-app-bundle"]?["files"] == 2)
            #expect(byReason["ios-caches"]?["files"] == 4)
            #expect(byReason["ios-tmp"]?["files"] == 3)

            let summary = try PhoneScratch.json(result)
            let counts = try #require(summary["counts"] as? [String: Any])
            #expect(counts["files"] as? Int == totals["files"] as? Int)
            #expect(counts["bytes"] as? Int == totals["bytes"] as? Int)
            let size = try FileManager.default.attributesOfItem(atPath: archive)[.size] as? Int
            #expect(summary["archiveBytes"] as? Int == size)
            let excluded = try #require(summary["excluded"] as? [String: Any])
            // 10 files and directories under the rules above, and the empty SystemData of the three non-bundle app
            // containers (mail's and news's data, news's widget extension).
            #expect(excluded["entries"] as? Int == 13)
            let shares = try #require(excluded["byReason"] as? [String: [String: Int]])
            #expect(shares.mapValues { ["files": $0["entries"] ?? -1, "bytes": $0["bytes"] ?? -1] } == byReason)
        }
    }

    @Test func theSameTreeGivesTheSameBytesToAFileOrStandardOutput() throws {
        try withTemporaryDirectory { dir in
            let phone = try Self.phone(dir)
            for name in ["a.tar", "b.tar", "a.tar.gz", "b.tgz", "a.tar.zst", "b.tar.zst", "a.tar.xz", "b.tar.xz"] {
                let result = try BackupCheck.devicectl(["backup", phone.root, "-o", "\(dir)/\(name)"])
                #expect(result.status == 0, "\(name): \(result.stderr)")
            }
            for (first, second) in [("a.tar", "b.tar"), ("a.tar.gz", "b.tgz"), ("a.tar.zst", "b.tar.zst"), ("a.tar.xz", "b.tar.xz")] {
                #expect(try Shell.run("cmp", ["\(dir)/\(first)", "\(dir)/\(second)"]).status == 0, "\(first) != \(second)")
            }
            let streamed = try BackupCheck.devicectl(["backup", phone.root, "-o", "-"])
            #expect(streamed.status == 0, "\(streamed.stderr)")
            #expect(streamed.stdoutData == (try Data(contentsOf: URL(fileURLWithPath: "\(dir)/a.tar"))))
            let plain = try TarTool.members("\(dir)/a.tar")
            for (name, magic) in [("a.tar.gz", "1f8b"), ("a.tar.zst", "28b52ffd"), ("a.tar.xz", "fd377a58")] {
                let head = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/\(name)")).prefix(4)
                #expect(head.map { String(format: "%02x", $0) }.joined().hasPrefix(magic), "\(name)")
                #expect(try TarTool.members("\(dir)/\(name)") == plain, "\(name)")
                #expect(try TarTool.members("\(dir)/\(name)", tool: "bsdtar") == plain, "\(name)")
            }
            // --compression wins over the extension; a later backup of a changed tree differs.
            let forced = try BackupCheck.devicectl(["backup", phone.root, "-o", "\(dir)/forced.tar", "--compression", "zstd", "--level", "19"])
            #expect(forced.status == 0, "\(forced.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: "\(dir)/forced.tar")).prefix(4) == Data([0x28, 0xb5, 0x2f, 0xfd]))
            try BackupCheck.sh("printf more >> \"$1\"", "\(phone.root)/Library/SpringBoard/IconState.plist")
            try BackupCheck.devicectl(["backup", phone.root, "-o", "\(dir)/c.tar"])
            #expect(try Shell.run("cmp", ["-s", "\(dir)/a.tar", "\(dir)/c.tar"]).status != 0)
        }
    }

    @Test func aBackupWaitsForTheDeviceLock() throws {
        try withTemporaryDirectory { dir in
            let phone = try Self.phone(dir)
            let lock = try FileLock(path: "\(phone.root)/DeviceLocal/lock", wait: false)
            let backup = try ChildProcess.devicectl(["backup", phone.root, "-o", "\(dir)/b.tar"])
            // Wait (with a deadline) until the kernel lists the backup as blocked on the device lock.
            let blocked = waitUntil(seconds: 20) { ProcFiles.waitsForALock(backup.pid) }
            #expect(blocked, "the backup never waited for the device lock")
            #expect(backup.isRunning)
            #expect(!FileManager.default.fileExists(atPath: "\(dir)/b.tar"))
            try lock.release()
            #expect(backup.finish(), "the backup did not end once the lock was released")
            #expect(backup.status == 0)
            #expect(FileManager.default.fileExists(atPath: "\(dir)/b.tar"))
        }
    }
}
