// BackupOutputTargetEndToEndTests: what `backup -o PATH` does with each kind of thing PATH can name: a regular
// file is replaced atomically, a symlink is followed (its target replaced, the link kept), a FIFO and a character
// device are written in place, and a directory, a block device, a socket, a symlink loop and a missing or
// non-directory parent are refused naming the path, with nothing changed.
import Foundation
import Glibc
import SystemKit
import TestSupport
import Testing

@Suite struct BackupOutputTargetEndToEndTests {
    /// A directory `src` with one file to back up, and `dir` itself for the targets.
    private static func withSource(_ body: (_ dir: String, _ source: String) throws -> Void) throws {
        try withTemporaryDirectory { dir in
            try BackupCheck.sh("mkdir \"$1/src\" && printf 'the data' > \"$1/src/a.txt\"", dir)
            try body(dir, dir + "/src")
        }
    }

    /// `devicectl verify ARCHIVE` passes.
    private static func expectIntact(_ archive: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let verified = try BackupCheck.devicectl(["verify", archive])
        #expect(verified.status == 0, "verify \(archive): \(verified.stderr)", sourceLocation: sourceLocation)
        #expect(
            try TarTool.members(archive, sourceLocation: sourceLocation) == ["a.txt", ".devicectl-manifest.jsonl"],
            sourceLocation: sourceLocation)
    }

    /// Runs `backup source -o target`, expecting exit 1 with `message` and `dir` unchanged (no temporary file).
    private static func expectRefused(
        _ dir: String, _ source: String, _ target: String, _ message: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try TreeSnapshot.take(dir)
        let result = try BackupCheck.devicectl(["backup", source, "-o", target])
        #expect(result.status == 1, "exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(
            result.stderr.contains("devicectl: cannot write the archive to \(target)\(message)"), "\(result.stderr)",
            sourceLocation: sourceLocation)
        #expect(try TreeSnapshot.take(dir) == before, sourceLocation: sourceLocation)
    }

    // MARK: - Written

    @Test func aRegularFileIsReplacedAtomicallyNotWrittenInPlace() throws {
        try Self.withSource { dir, source in
            let archive = dir + "/b.tar"
            try BackupCheck.sh("printf old > \"$1/b.tar\" && ln \"$1/b.tar\" \"$1/old-link\"", dir)
            let before = try FileStatus.of(archive)
            let result = try BackupCheck.devicectl(["backup", source, "-o", archive])
            #expect(result.status == 0, "\(result.stderr)")
            // A new inode at the name; the old one (still linked) was never touched.
            #expect(try FileStatus.of(archive).inode != before.inode)
            #expect(try String(contentsOfFile: dir + "/old-link", encoding: .utf8) == "old")
            try Self.expectIntact(archive)
            #expect(try directoryNames(in: dir) == ["b.tar", "old-link", "src"])
        }
    }

    @Test func aSymlinkIsFollowedItsTargetReplacedAndTheLinkKept() throws {
        try Self.withSource { dir, source in
            // out/latest.tar -> ../real/current.tar -> 2026.tar: relative links, each from its own directory.
            try BackupCheck.sh(
                """
                set -e
                mkdir "$1/out" "$1/real"; printf old > "$1/real/2026.tar"
                ln -s ../real/current.tar "$1/out/latest.tar"; ln -s 2026.tar "$1/real/current.tar"
                """, dir)
            let oldInode = try FileStatus.of(dir + "/real/2026.tar").inode
            let result = try BackupCheck.devicectl(["backup", source, "-o", dir + "/out/latest.tar"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("backed up \(source) to \(dir)/out/latest.tar"), "\(result.stderr)")
            let links = FileManager.default
            #expect(try links.destinationOfSymbolicLink(atPath: dir + "/out/latest.tar") == "../real/current.tar")
            #expect(try links.destinationOfSymbolicLink(atPath: dir + "/real/current.tar") == "2026.tar")
            #expect(try FileStatus.of(dir + "/real/2026.tar").kind == .regular)
            #expect(try FileStatus.of(dir + "/real/2026.tar").inode != oldInode)
            try Self.expectIntact(dir + "/real/2026.tar")
            #expect(try directoryNames(in: dir + "/out") == ["latest.tar"])
            #expect(try directoryNames(in: dir + "/real") == ["2026.tar", "current.tar"])
        }
    }

    @Test func aDanglingSymlinkCreatesItsTarget() throws {
        try Self.withSource { dir, source in
            try BackupCheck.sh("mkdir \"$1/real\" && ln -s real/new.tar \"$1/latest.tar\"", dir)
            let result = try BackupCheck.devicectl(["backup", source, "-o", dir + "/latest.tar"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try FileStatus.of(dir + "/latest.tar").kind == .symlink)
            try Self.expectIntact(dir + "/real/new.tar")
            #expect(try directoryNames(in: dir + "/real") == ["new.tar"])
        }
    }

    @Test func aFIFOIsWrittenToItsReaderAndStaysAFIFO() throws {
        try Self.withSource { dir, source in
            let fifo = dir + "/pipe.tar"
            try #require(mkfifo(fifo, 0o600) == 0)
            // The test holds the FIFO open too (O_RDWR opens a FIFO without waiting), so whatever the backup does
            // (even replacing the FIFO), closing it gives the reader its end of file and the test never hangs.
            let keeper = open(fifo, O_RDWR | O_CLOEXEC)
            try #require(keeper >= 0)
            // The reader copies whatever comes through the FIFO into a file, and ends at its end.
            let reader = try ChildProcess(
                "/bin/sh", ["-c", "exec cat \"$1\" > \"$2\"", "sh", fifo, dir + "/received.tar"])
            let result = try BackupCheck.devicectl(["backup", source, "-o", fifo])
            close(keeper)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(reader.finish(), "the reader did not end after the backup closed the FIFO")
            #expect(reader.status == 0)
            #expect(try FileStatus.of(fifo).kind == .fifo)
            try Self.expectIntact(dir + "/received.tar")
            #expect(try directoryNames(in: dir) == ["pipe.tar", "received.tar", "src"])
        }
    }

    @Test func aBackupWaitingForItsFIFOsReaderHoldsNoDeviceLock() throws {
        try withTemporaryDirectory { dir in
            let root = dir + "/phone", fifo = dir + "/pipe.tar"
            for setup in [["init", root], ["install", root, "--app", "com.example.news"]] {
                let result = try BackupCheck.devicectl(setup)
                try #require(result.status == 0, "\(setup): \(result.stderr)")
            }
            try #require(mkfifo(fifo, 0o600) == 0)
            // Killed when the test ends, should it still run.
            let backup = try ChildProcess.devicectl(["backup", root, "-o", fifo, "--no-progress"])
            // Wait (up to 20 s) until the backup sleeps in open(2) waiting for a reader of the FIFO.
            let wchan = "/proc/\(backup.pid)/wchan"
            backup.wait(upTo: 20) { (try? String(contentsOfFile: wchan, encoding: .utf8)) == "wait_for_partner" }
            try #require(try String(contentsOfFile: wchan, encoding: .utf8) == "wait_for_partner")
            // A command that takes the device's lock runs meanwhile (killed after 20 s: a held lock fails, not hangs;
            // SIGKILL, since a child of the test runner may inherit SIGTERM blocked).
            let launch = try Shell.run(
                "timeout", ["-s", "KILL", "20", DevicectlBinary.path, "launch", root, "--app", "com.example.news"],
                environment: ["DEVICECTL_NOW": BackupCheck.now])
            #expect(launch.status == 0, "\(launch.stderr)")
            let reader = try Shell.run(
                "/bin/sh", ["-c", "exec timeout -s KILL 20 cat \"$1\" > \"$2\"", "sh", fifo, dir + "/received.tar"])
            #expect(reader.status == 0)
            try #require(backup.finish(within: 60), "the backup did not end after its reader read the FIFO")
            #expect(backup.status == 0)
            let verified = try BackupCheck.devicectl(["verify", dir + "/received.tar"])
            #expect(verified.status == 0, "\(verified.stderr)")
        }
    }

    @Test func devStdoutOnAPipeIsWrittenThroughTheLink() throws {
        try Self.withSource { dir, source in
            // /dev/stdout -> /proc/self/fd/1 -> "pipe:[N]": the link's text names nothing; the kernel opens the pipe.
            let script = "{ \"$0\" backup \"$1\" -o /dev/stdout; echo $? > \"$3\"; } | cat > \"$2\""
            let received = dir + "/received.tar", status = dir + "/status"
            let result = try Shell.run(
                "/bin/sh", ["-c", script, DevicectlBinary.path, source, received, status],
                environment: ["DEVICECTL_NOW": BackupCheck.now])
            #expect(result.status == 0)
            #expect(try String(contentsOfFile: status, encoding: .utf8) == "0\n", "\(result.stderr)")
            try Self.expectIntact(received)
        }
    }

    @Test func devNullStaysTheNullDevice() throws {
        let before = try FileStatus.of("/dev/null")
        #expect(before.kind == .characterDevice)
        // Should /dev/null ever be replaced by a regular file, put the device back for everyone else.
        defer {
            if (try? FileStatus.of("/dev/null"))?.kind != .characterDevice {
                _ = try? Shell.run("/bin/sh", ["-c", "rm -f /dev/null && mknod -m 666 /dev/null c 1 3"])
            }
        }
        try Self.withSource { _, source in
            for compression in ["none", "zstd"] {
                let result = try BackupCheck.devicectl(
                    ["backup", source, "-o", "/dev/null", "--compression", compression])
                #expect(result.status == 0, "\(result.stderr)")
                #expect(result.stderr.contains("backed up \(source) to /dev/null"), "\(result.stderr)")
                let after = try FileStatus.of("/dev/null")
                #expect(after.kind == .characterDevice && after.inode == before.inode, "/dev/null was replaced")
            }
        }
        #expect(try directoryNames(in: "/dev").allSatisfy { !$0.contains("devicectl-tmp") })
    }

    @Test func aCharacterDeviceIsWrittenInPlaceAndItsWriteErrorsNamed() throws {
        try Self.withSource { dir, source in
            // A null device of our own (1:3), and /dev/full (1:7), whose every write fails with ENOSPC.
            try BackupCheck.sh("mknod \"$1/null\" c 1 3 && mknod \"$1/full\" c 1 7", dir)
            let written = try BackupCheck.devicectl(["backup", source, "-o", dir + "/null"])
            #expect(written.status == 0, "\(written.stderr)")
            #expect(try FileStatus.of(dir + "/null").kind == .characterDevice)
            let full = try BackupCheck.devicectl(["backup", source, "-o", dir + "/full"])
            #expect(full.status == 1)
            #expect(full.stderr.contains("\(dir)/full"), "\(full.stderr)")
            #expect(
                full.stderr.contains("cannot write the archive to \(dir)/full: no space left on device"),
                "\(full.stderr)")
            #expect(try FileStatus.of(dir + "/full").kind == .characterDevice)
            #expect(try directoryNames(in: dir) == ["full", "null", "src"])
        }
    }

    // MARK: - Refused

    @Test func aDirectoryIsRefused() throws {
        try Self.withSource { dir, source in
            try BackupCheck.sh("mkdir \"$1/out\" && ln -s out \"$1/to-dir\"", dir)
            try Self.expectRefused(dir, source, dir + "/out", ": it is a directory")
            try Self.expectRefused(dir, source, dir + "/out/", ": it is a directory")
            try Self.expectRefused(dir, source, dir + "/to-dir", " (a symbolic link to \(dir)/out): it is a directory")
        }
    }

    @Test func aBlockDeviceIsRefusedUnopened() throws {
        try Self.withSource { dir, source in
            try BackupCheck.sh("mknod \"$1/disk\" b 7 200", dir)
            try Self.expectRefused(dir, source, dir + "/disk", ": it is a block device")
            #expect(try FileStatus.of(dir + "/disk").kind == .blockDevice)
        }
    }

    @Test func aSocketIsRefused() throws {
        try Self.withSource { dir, source in
            let script = "import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])"
            try #require(try Shell.run("python3", ["-c", script, dir + "/socket"]).status == 0)
            try Self.expectRefused(dir, source, dir + "/socket", ": it is a socket")
        }
    }

    @Test func aSymlinkLoopIsRefused() throws {
        try Self.withSource { dir, source in
            try BackupCheck.sh("ln -s self \"$1/self\" && ln -s b \"$1/a\" && ln -s a \"$1/b\"", dir)
            try Self.expectRefused(dir, source, dir + "/self", ": it is a loop of symbolic links")
            try Self.expectRefused(dir, source, dir + "/a", ": it is a loop of symbolic links")
        }
    }

    @Test func aMissingOrNonDirectoryParentIsRefusedNamingIt() throws {
        try Self.withSource { dir, source in
            try BackupCheck.sh("printf x > \"$1/file\" && ln -s nowhere/b.tar \"$1/dangling\"", dir)
            try Self.expectRefused(
                dir, source, dir + "/nowhere/b.tar", ": the directory \(dir)/nowhere does not exist")
            try Self.expectRefused(
                dir, source, dir + "/dangling",
                " (a symbolic link to \(dir)/nowhere/b.tar): the directory \(dir)/nowhere does not exist")
            try Self.expectRefused(dir, source, dir + "/file/b.tar", ": \(dir)/file is not a directory")
            try Self.expectRefused(dir, source, dir + "/file/x/b.tar", ": \(dir)/file/x is not a directory")
        }
    }
}
