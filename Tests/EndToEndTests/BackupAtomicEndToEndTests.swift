// BackupAtomicEndToEndTests: no file at ARCHIVE unless the backup completed: unreadable and changing
// files fail naming the path, signals remove the temporary file, stale temporaries are cleaned up.
import Foundation
import Glibc
import SystemKit
import TestSupport
import Testing

@Suite struct BackupAtomicEndToEndTests {
    @Test func anUnreadableFileFailsNamingItAndLeavesNothing() throws {
        try withTemporaryDirectory { dir in
            let tree = "\(dir)/src"
            try BackupCheck.sh(
                """
                set -e
                chmod 755 "$1"; mkdir "$1/src" "$1/out"; chown nobody "$1/out"
                printf ok > "$1/src/a.txt"; printf secret > "$1/src/secret.txt"; chmod 000 "$1/src/secret.txt"
                """, dir)
            let asNobody = ["--reuid=nobody", "--regid=nogroup", "--clear-groups", DevicectlBinary.path, "backup", tree]
            let failed = try Shell.run("setpriv", asNobody + ["-o", "\(dir)/out/b.tar"])
            #expect(failed.status == 1)
            #expect(
                failed.stderr.contains("devicectl: cannot read \(tree)/secret.txt: permission denied"),
                "\(failed.stderr)")
            #expect(try directoryNames(in: "\(dir)/out") == [])
            // Excluded anyway (nodump is read by statx, without opening): the backup succeeds.
            try BackupCheck.sh("chattr +d \"$1\"", "\(tree)/secret.txt")
            let passed = try Shell.run("setpriv", asNobody + ["-o", "\(dir)/out/b.tar"])
            #expect(passed.status == 0, "\(passed.stderr)")
            #expect(try TarTool.members("\(dir)/out/b.tar") == ["a.txt", ".devicectl-manifest.jsonl"])
        }
    }

    @Test func aFileGrowingDuringTheBackupFailsIt() throws {
        try withTemporaryDirectory(inMemory: true) { dir in
            try BackupCheck.sh("mkdir \"$1/src\" && head -c 48000000 /dev/zero > \"$1/src/growing.log\"", dir)
            let path = "\(dir)/src/growing.log"
            let stop = Atomic(false)
            let appender = Thread {
                let fd = open(path, O_WRONLY | O_APPEND)
                while !stop.value {
                    _ = write(fd, "x", 1)
                    usleep(500)
                }
                close(fd)
            }
            appender.start()
            defer { stop.value = true }
            let result = try BackupCheck.devicectl(["backup", "\(dir)/src", "-o", "\(dir)/b.tar"])
            stop.value = true
            #expect(result.status == 1)
            #expect(result.stderr.contains("devicectl: \(path) changed while it was being read"), "\(result.stderr)")
            #expect(result.stderr.contains("the backup was not written"))
            #expect(try directoryNames(in: dir) == ["src"])
        }
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalRemovesTheTemporaryFile(_ signal: Int32) throws {
        try withTemporaryDirectory(inMemory: true) { dir in
            // A large sparse file keeps the backup busy long enough to be interrupted.
            try BackupCheck.sh("mkdir \"$1/src\" && truncate -s 512M \"$1/src/sparse\"", dir)
            let backup = try ChildProcess.devicectl(["backup", "\(dir)/src", "-o", "\(dir)/b.tar"])
            let temporary = "\(dir)/.b.tar.devicectl-tmp-\(backup.pid)"
            backup.wait(upTo: 10) { access(temporary, F_OK) == 0 }
            #expect(access(temporary, F_OK) == 0, "the temporary file never appeared")
            backup.signal(signal)
            #expect(backup.killedBy != nil)
            #expect(backup.status == signal)
            #expect(try directoryNames(in: dir) == ["src"])
        }
    }

    @Test func staleTemporaryFilesAreRemovedAndALiveOneRefusesTheBackup() throws {
        try withTemporaryDirectory { dir in
            try BackupCheck.sh("mkdir \"$1/src\" && printf a > \"$1/src/a\"", dir)
            let stale = "\(dir)/.b.tar.devicectl-tmp-999999"
            let live = "\(dir)/.b.tar.devicectl-tmp-888888"
            let other = "\(dir)/.c.tar.devicectl-tmp-777777"
            for path in [stale, live, other] { _ = FileManager.default.createFile(atPath: path, contents: Data("junk".utf8)) }
            let lock = try FileLock(path: live, wait: false)
            // A live (locked) temporary file of the same archive: another writer; this backup refuses to start.
            let refused = try BackupCheck.devicectl(["backup", "\(dir)/src", "-o", "\(dir)/b.tar"])
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("another devicectl (pid 888888) is writing \(dir)/b.tar"), "\(refused.stderr)")
            #expect(try directoryNames(in: dir) == [".b.tar.devicectl-tmp-888888", ".c.tar.devicectl-tmp-777777", "src"])
            try lock.release()
            let result = try BackupCheck.devicectl(["backup", "\(dir)/src", "-o", "\(dir)/b.tar"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try directoryNames(in: dir) == [".c.tar.devicectl-tmp-777777", "b.tar", "src"])
        }
    }

    @Test func unusableOutputsFailCleanly() throws {
        try withTemporaryDirectory { dir in
            try BackupCheck.sh("mkdir \"$1/src\" \"$1/out\" && printf a > \"$1/src/a\"", dir)
            let missing = try BackupCheck.devicectl(["backup", "\(dir)/src", "-o", "\(dir)/nowhere/b.tar"])
            #expect(missing.status == 1)
            let reason = "the directory \(dir)/nowhere does not exist"
            #expect(
                missing.stderr.contains("devicectl: cannot write the archive to \(dir)/nowhere/b.tar: \(reason)"),
                "\(missing.stderr)")
            let directory = try BackupCheck.devicectl(["backup", "\(dir)/src", "-o", "\(dir)/out"])
            #expect(directory.status == 1)
            #expect(directory.stderr.contains("cannot write the archive to \(dir)/out: it is a directory"))
            #expect(try directoryNames(in: "\(dir)/out") == [])
            let noRoot = try BackupCheck.devicectl(["backup", "\(dir)/absent", "-o", "\(dir)/b.tar"])
            #expect(noRoot.status == 1)
            #expect(noRoot.stderr.contains("cannot back up \(dir)/absent: no such file or directory"))
            #expect(try directoryNames(in: dir) == ["out", "src"])
        }
    }

    @Test func aFullDiskFailsNamingTheArchiveAndLeavesNothing() throws {
        try withTemporaryDirectory { dir in
            try BackupCheck.sh("mkdir \"$1/src\" \"$1/out\" && head -c 4000000 /dev/urandom > \"$1/src/big\"", dir)
            // A 1 MiB tmpfs in a private mount namespace: the archive cannot fit.
            let script = """
                mount -t tmpfs -o size=1m none "$1/out" || exit 99
                "$2" backup "$1/src" -o "$1/out/b.tar"; status=$?
                ls -A "$1/out"
                exit $status
                """
            let result = try Shell.run(
                "unshare", ["--mount", "--propagation", "private", "sh", "-c", script, "sh", dir, DevicectlBinary.path])
            try #require(result.status != 99, "cannot mount tmpfs here: \(result.stderr)")
            #expect(result.status == 1)
            #expect(
                result.stderr.contains("cannot write the archive to \(dir)/out/b.tar: no space left on device"),
                "\(result.stderr)")
            #expect(result.stdout.isEmpty, "left behind: \(result.stdout)")
        }
    }

    @Test func anArchiveWrittenInsideTheTreeDoesNotContainItself() throws {
        try withTemporaryDirectory { dir in
            try BackupCheck.sh("mkdir \"$1/src\" && printf a > \"$1/src/a\"", dir)
            let result = try BackupCheck.devicectl(["backup", "\(dir)/src", "-o", "\(dir)/src/self.tar"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try TarTool.members("\(dir)/src/self.tar") == ["a", ".devicectl-manifest.jsonl"])
        }
    }
}

/// A flag shared with the appender thread.
final class Atomic<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
