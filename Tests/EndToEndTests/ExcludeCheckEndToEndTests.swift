// ExcludeCheckEndToEndTests: `devicectl exclude check` gives, per path, whether a backup skips it and
// every reason (its own flags, the iOS rules of the enclosing device root, a skipped ancestor).
import Foundation
import TestSupport
import Testing

@Suite struct ExcludeCheckEndToEndTests {
    @Test func everyFlagIsReportedWithItsReason() throws {
        try withTemporaryDirectory { dir in
            try BackupCheck.sh(
                """
                set -e
                cd "$1"
                printf a > plain; printf a > apple; printf a > mobile; printf a > xdg; printf a > both
                setfattr -n user.com.apple.metadata:com_apple_backup_excludeItem -v "0x$2" apple
                setfattr -n user.com.apple.MobileBackup -v 0x01 mobile
                setfattr -n user.xdg.robots.backup -v false xdg
                setfattr -n user.xdg.robots.backup -v false both; chattr +d both
                mkdir -p cache/inner; printf 'Signature: 8a477f597d28d172789f06886806bc55' > cache/CACHEDIR.TAG
                printf x > cache/inner/deep
                ln -s plain link
                """, dir, PhoneScratch.exclusionHex)
            let paths = ["plain", "apple", "mobile", "xdg", "both", "cache", "cache/inner/deep", "link"].map { "\(dir)/\($0)" }
            let result = try BackupCheck.devicectl(["exclude", "check"] + paths)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout == """
                \(dir)/plain: included
                \(dir)/apple: excluded (apple-exclude-xattr)
                \(dir)/mobile: excluded (ios-mobilebackup-xattr)
                \(dir)/xdg: excluded (xdg-robots-backup)
                \(dir)/both: excluded (xdg-robots-backup, nodump)
                \(dir)/cache: excluded (cachedir-tag)
                \(dir)/cache/inner/deep: excluded (excluded-ancestor: \(dir)/cache [cachedir-tag])
                \(dir)/link: included

                """)

            let json = try BackupCheck.devicectl(["exclude", "check", "--json", "\(dir)/both", "\(dir)/cache/inner/deep"])
            let entries = try #require(try PhoneScratch.json(json)["paths"] as? [[String: Any]])
            #expect(entries.count == 2)
            #expect(entries[0]["excluded"] as? Bool == true)
            #expect(entries[0]["reasons"] as? [String] == ["xdg-robots-backup", "nodump"])
            #expect(entries[0]["ancestor"] is NSNull)
            #expect(entries[0]["deviceRoot"] is NSNull)
            #expect(entries[1]["reasons"] as? [String] == ["excluded-ancestor"])
            let ancestor = try #require(entries[1]["ancestor"] as? [String: Any])
            #expect(ancestor["path"] as? String == "\(dir)/cache")
            #expect(ancestor["reasons"] as? [String] == ["cachedir-tag"])
        }
    }

    @Test func iOSRulesApplyInsideADeviceRootFromAnyWorkingDirectory() throws {
        try withTemporaryDirectory { dir in
            let phone = try BackupDeviceEndToEndTests.phone(dir)
            let data = try phone.containerPath("Containers/Data/Application", "com.example.news")
            let bundle = try phone.containerPath("Containers/Bundle/Application", "com.example.news")
            let group = try phone.containerPath("Containers/Shared/AppGroup", "group.com.example.news")
            let paths = [
                phone.root, "\(phone.root)/DeviceLocal/identity.plist", bundle, "\(bundle)/News.app/Info.plist",
                "\(data)/Library/Caches", "\(data)/Library/Caches/image.bin", "\(data)/tmp/upload.part",
                "\(data)/Documents/article.txt", "\(group)/Library/Caches/shared.bin",
            ]
            let result = try BackupCheck.devicectl(["exclude", "check"] + paths)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stdout.split(separator: "\n").map(String.init) == [
                "\(phone.root): included",
                "\(phone.root)/DeviceLocal/identity.plist: excluded (excluded-ancestor: \(phone.root)/DeviceLocal [device-local])",
                "\(bundle): excluded (ios-app-bundle)",
                "\(bundle)/News.app/Info.plist: excluded (excluded-ancestor: \(bundle) [ios-app-bundle])",
                "\(data)/Library/Caches: excluded (ios-caches)",
                "\(data)/Library/Caches/image.bin: excluded (excluded-ancestor: \(data)/Library/Caches [ios-caches])",
                "\(data)/tmp/upload.part: excluded (excluded-ancestor: \(data)/tmp [ios-tmp])",
                "\(data)/Documents/article.txt: included",
                "\(group)/Library/Caches/shared.bin: excluded (excluded-ancestor: \(group)/Library/Caches [ios-caches])",
            ])
            // Relative paths work from inside the device, and the JSON names the device root.
            let relative = try Shell.run(
                DevicectlBinary.path, ["exclude", "check", "--json", "Library/Caches"], directory: data)
            let entry = try #require((try PhoneScratch.json(relative)["paths"] as? [[String: Any]])?.first)
            #expect(entry["reasons"] as? [String] == ["ios-caches"])
            #expect(entry["deviceRoot"] as? String == phone.root)
            #expect(entry["absolutePath"] as? String == "\(data)/Library/Caches")
            // The same answer as a backup's dry run.
            let dry = try BackupCheck.devicectl(["backup", phone.root, "--dry-run"])
            let relativeData = String(data.dropFirst(phone.root.count + 1))
            #expect(dry.stdout.contains("\(relativeData)/Library/Caches/  (ios-caches)\n"))
        }
    }

    @Test func aMissingPathFailsNamingItAndTheOthersStillAnswer() throws {
        try withTemporaryDirectory { dir in
            try BackupCheck.sh("printf a > \"$1/here\"", dir)
            let result = try BackupCheck.devicectl(["exclude", "check", "\(dir)/here", "\(dir)/gone"])
            #expect(result.status == 1)
            #expect(result.stdout == "\(dir)/here: included\n")
            #expect(result.stderr == "devicectl: \(dir)/gone: no such file or directory\n")
        }
    }
}
