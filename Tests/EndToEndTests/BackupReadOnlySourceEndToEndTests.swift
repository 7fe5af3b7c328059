// BackupReadOnlySourceEndToEndTests: a backup of a read-only device root (a read-only bind mount) writes a
// complete archive and exits 0 with a warning: the source's event log is never a reason to fail a backup.
import Foundation
import TestSupport
import Testing

@Suite struct BackupReadOnlySourceEndToEndTests {
    @Test(.enabled(if: RamfsNamespace.available, "needs unshare and mount (root)"))
    func aReadOnlyDeviceRootIsBackedUpWithAWarning() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            try phone.ok(["launch", phone.root, "--app", "com.example.news"])
            let archive = phone.dir + "/b.tar"
            let result = try Shell.run(
                "unshare",
                [
                    "--mount", "--propagation", "private", "sh", "-c",
                    """
                    mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" || exit 99
                    DEVICECTL_NOW=2026-12-01T10:00:00Z "$2" backup "$1" -o "$3"; echo "backup=$?"
                    """,
                    "sh", phone.root, DevicectlBinary.path, archive,
                ])
            #expect(result.stdout == "backup=0\n", "\(result.stdout) \(result.stderr)")
            #expect(
                result.stderr.contains(
                    "devicectl: warning: the backup is complete, "
                        + "but it could not be recorded in the device's event log"),
                "\(result.stderr)")
            #expect(result.stderr.contains("events.jsonl: cannot open it: read-only file system"), "\(result.stderr)")
            try phone.ok(["verify", archive])
            #expect(try !phone.events().contains { $0["type"] as? String == "backup" })
        }
    }
}
