// ConcurrencyTests: two devicectl processes on the same archive path or the same ROOT: never two writers.
// A second backup to an archive being written refuses clearly; of two restores onto one ROOT exactly one
// restores and the other refuses (it waits for the device lock, then finds the device no longer fresh);
// a backup of a ROOT being restored waits and archives the finished restore.
import DeviceKit
import Foundation
import Glibc
import SystemKit
import TestSupport
import Testing

@Suite(.serialized) struct ConcurrencyTests {
    @Test func aSecondBackupToTheSameArchiveRefusesWhileTheFirstWrites() throws {
        try PhoneScratch.withFaults { scratch in
            let tree = try PhoneScratch.fill(scratch.dir + "/tree", files: 400, size: 256 << 10)
            let archive = scratch.dir + "/out/b.tar"
            try FileManager.default.createDirectory(atPath: scratch.dir + "/out", withIntermediateDirectories: true)
            let first = try ChildProcess.devicectl(["backup", tree, "-o", archive])
            let temporary = scratch.dir + "/out/.b.tar.devicectl-tmp-\(first.pid)"
            #expect(first.wait(upTo: 10) { access(temporary, F_OK) == 0 }, "the first backup never started writing")
            let second = try scratch.run(["backup", tree, "-o", archive])
            PhoneScratch.expectCleanFailure(
                second, mentioning: ["another devicectl (pid \(first.pid)) is writing \(archive)"])
            #expect(first.isRunning, "the first backup finished too soon to prove anything")
            #expect(first.finish())
            #expect(first.status == 0, "\(first.stderr)")
            try scratch.ok(["verify", archive])
            #expect(try directoryNames(in: scratch.dir + "/out") == ["b.tar"])
        }
    }

    @Test func backupsStartedTogetherNeverWriteTheSameArchiveAtOnce() throws {
        try PhoneScratch.withFaults { scratch in
            let tree = try PhoneScratch.fill(scratch.dir + "/tree", files: 200, size: 64 << 10)
            let out = scratch.dir + "/out"
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            let children = try (0..<6).map { _ in try ChildProcess.devicectl(["backup", tree, "-o", out + "/b.tar"]) }
            // Watch the directory while they run: at most one temporary file (one writer) at any moment.
            var most = 0
            while children.contains(where: \.isRunning) {
                let writers =
                    (try? directoryNames(in: out).filter { $0.hasPrefix(".b.tar.devicectl-tmp-") }.count) ?? 0
                most = max(most, writers)
                usleep(200)
            }
            #expect(most <= 1, "\(most) backups wrote the same archive at once")
            for child in children where child.status != 0 {
                #expect(child.status == 1)
                #expect(child.stderr.contains("is writing \(out)/b.tar right now"), "\(child.stderr)")
            }
            #expect(children.contains { $0.status == 0 })
            try scratch.ok(["verify", out + "/b.tar"])
            #expect(try directoryNames(in: out) == ["b.tar"])
        }
    }

    @Test(arguments: [true, false])
    func twoRestoresOntoOneRootTakeTurnsAndOnlyOneRestores(_ rootExists: Bool) throws {
        try PhoneScratch.withFaults { scratch in
            let phone = try scratch.phone(files: 300, size: 8192)
            let archive = scratch.dir + "/phone.tar"
            try scratch.ok(["backup", phone, "-o", archive])
            let referenceRoot = try scratch.freshDevice("reference")
            try scratch.ok(["restore", archive, referenceRoot])
            let reference = try PhoneScratch.restoredContent(referenceRoot)
            for round in 0..<4 {
                let root = scratch.dir + "/target\(round)"
                if rootExists { try scratch.ok(["init", root]) }
                let children = try (0..<2).map { _ in try ChildProcess.devicectl(["restore", archive, root]) }
                for child in children { #expect(child.finish()) }
                let statuses: [Int32] = children.map { $0.status }.sorted()
                let messages: [String] = children.map { $0.stderr }
                #expect(statuses == [0, 1], "round \(round): \(messages)")
                for child in children where child.status == 1 {
                    #expect(child.stderr.contains("is not a fresh device"), "\(child.stderr)")
                }
                let restored = try PhoneScratch.restoredContent(root)
                #expect(restored == reference, "\(snapshotDifference(reference, restored))")
                let leftovers = try directoryNames(in: root).filter { $0.hasPrefix(".devicectl-restore-") }
                #expect(leftovers.isEmpty)
            }
        }
    }

    @Test func aBackupOfARootBeingRestoredWaitsAndArchivesTheWholeRestore() throws {
        try PhoneScratch.withFaults { scratch in
            let phone = try scratch.phone(files: 1500, size: 8192)
            let archive = scratch.dir + "/phone.tar"
            try scratch.ok(["backup", phone, "-o", archive])
            let root = try scratch.freshDevice("target")
            let restore = try ChildProcess.devicectl(["restore", archive, root])
            #expect(
                restore.wait(upTo: 10) {
                    (try? directoryNames(in: root).contains { $0.hasPrefix(".devicectl-restore-") }) == true
                })
            let backup = try ChildProcess.devicectl(["backup", root, "-o", scratch.dir + "/again.tar"])
            #expect(restore.finish() && backup.finish())
            #expect(restore.status == 0, "\(restore.stderr)")
            #expect(backup.status == 0, "\(backup.stderr)")
            // The second backup holds exactly what the first did: it never saw a half-restored device.
            let first = try scratch.ok(["list", archive, "--json"]).stdoutData
            let second = try scratch.ok(["list", scratch.dir + "/again.tar", "--json"]).stdoutData
            #expect(try Self.files(first) == Self.files(second))
        }
    }

    @Test func aRestoreWaitingForTheDeviceLockStopsAtSIGINT() throws {
        try PhoneScratch.withFaults { scratch in
            let phone = try scratch.phone(files: 3, size: 100)
            let archive = scratch.dir + "/phone.tar"
            try scratch.ok(["backup", phone, "-o", archive])
            let root = try scratch.freshDevice("target")
            let before = try TreeSnapshot.take(root)
            // Another devicectl holds the device (here: this test, through the same lock file).
            let lock = try FileLock(path: root + "/DeviceLocal/lock", wait: false)
            let restore = try ChildProcess.devicectl(["restore", archive, root])
            // It says when it starts waiting for the device: then, and only then, the SIGINT tests the wait.
            let waiting = restore.wait(upTo: 20) { restore.stderr.contains("waiting for another devicectl") }
            #expect(waiting, "the restore did not wait for the lock: \(restore.stderr)")
            #expect(restore.isRunning, "the restore did not wait for the lock: \(restore.stderr)")
            kill(restore.pid, SIGINT)
            let stopped = restore.finish(within: 5)  // killed after 5 s if it still waits
            try lock.release()
            #expect(stopped, "SIGINT did not stop a restore waiting for the device lock")
            #expect(restore.status == 128 + SIGINT, "\(restore.stderr)")
            #expect(restore.stderr.contains("interrupted by SIGINT"), "\(restore.stderr)")
            #expect(try TreeSnapshot.take(root) == before)
        }
    }

    /// "path size" of each regular file (the manifest aside: its header names the device) in `list --json` output.
    static func files(_ json: Data) throws -> [String] {
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let members = try #require(object["members"] as? [[String: Any]])
        return members.filter {
            $0["type"] as? String == "file" && $0["path"] as? String != ".devicectl-manifest.jsonl"
        }
        .map { "\($0["path"] ?? "") \($0["size"] ?? "")" }.sorted()
    }

    /// A command waiting for the device lock says whom it waits for (the holder's pid, from the lock file)
    /// as soon as it starts waiting, then runs once the lock is free.
    @Test func aCommandWaitingForTheDeviceLockSaysWhoHoldsIt() throws {
        try PhoneScratch.withFaults { scratch in
            let root = scratch.root
            try scratch.ok(["init", root])
            try scratch.ok(["install", root, "--app", "com.example.news", "--group", "group.com.example.news"])
            let held = try Device.open(root).lock(wait: false)
            let waiter = try ChildProcess.devicectl(
                ["launch", root, "--app", "com.example.news"], environment: ["DEVICECTL_NOW": PhoneScratch.now])
            let message = "devicectl: waiting for another devicectl using \(root) (pid \(getpid()))..."
            #expect(waiter.wait(upTo: 30) { waiter.stderr.contains(message) }, "\(waiter.stderr)")
            #expect(waiter.isRunning, "the launch did not wait for the lock")
            try held.release()
            #expect(waiter.finish())
            #expect(waiter.status == 0, "\(waiter.stderr)")
            #expect(waiter.stdout.contains("device token sent: "))
        }
    }

    /// `--lock-timeout` and `DEVICECTL_LOCK_TIMEOUT` bound the wait: exit 1 naming the holder, nothing done.
    @Test(arguments: [true, false])
    func aLockTimeoutGivesUpAndChangesNothing(_ option: Bool) throws {
        try PhoneScratch.withFaults { scratch in
            let root = scratch.root
            try scratch.ok(["init", root])
            try scratch.ok(["install", root, "--app", "com.example.news", "--group", "group.com.example.news"])
            let held = try Device.open(root).lock(wait: false)
            defer { try? held.release() }
            let before = try TreeSnapshot.take(root)
            var environment = ["DEVICECTL_NOW": PhoneScratch.now]
            var arguments = ["launch", root, "--app", "com.example.news"]
            if option { arguments += ["--lock-timeout", "0.2"] } else { environment["DEVICECTL_LOCK_TIMEOUT"] = "0.2" }
            let result = try DevicectlBinary.run(arguments, environment: environment)
            #expect(result.status == 1, "\(result.stderr)")
            #expect(result.stderr.contains("waiting for another devicectl using \(root) (pid \(getpid()))..."))
            #expect(
                result.stderr.contains(
                    "gave up after 0.2 s waiting for another devicectl using \(root) (pid \(getpid())); "
                        + "nothing was done"),
                "\(result.stderr)")
            #expect(try TreeSnapshot.take(root) == before)
            let bad = try DevicectlBinary.run(
                ["launch", root, "--app", "com.example.news", "--lock-timeout", "soon"], environment: environment)
            #expect(bad.status == 64)
            #expect(bad.stderr.contains("invalid value 'soon' for --lock-timeout"))
        }
    }
}
