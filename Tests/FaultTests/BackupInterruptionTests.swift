// BackupInterruptionTests: a backup of a large tree killed (SIGKILL) or interrupted (SIGINT, SIGTERM, SIGHUP)
// at any moment never leaves a file at the archive path, and never damages the archive already there (the
// temporary file is renamed over it only when complete). A temporary file left by SIGKILL is never taken for a
// backup: verify, list and restore of it fail, and the next backup to that path removes it. A stream cut short
// (`-o -`) fails verify and restore too.
import Foundation
import Glibc
import TestSupport
import Testing

@Suite(.serialized) struct BackupInterruptionTests {
    /// A 100 MB tree (400 files of 256 KiB), and an archive of an older version of it at `out/b.tar`.
    struct Fixture {
        let scratch: PhoneScratch
        let tree: String
        let out: String
        var archive: String { out + "/b.tar" }
        let previous: Data

        init(_ scratch: PhoneScratch) throws {
            self.scratch = scratch
            tree = scratch.dir + "/tree"
            out = scratch.dir + "/out"
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            try PhoneScratch.fill(tree, files: 40, size: 4096)
            try scratch.ok(["backup", tree, "-o", out + "/b.tar"])
            previous = try Data(contentsOf: URL(fileURLWithPath: out + "/b.tar"))
            try PhoneScratch.fill(tree, files: 400, size: 256 << 10)
        }

        /// Starts a backup over the previous archive and sends `signal` once its temporary file holds `bytes`.
        func interrupt(with signal: Int32, after bytes: Int) throws -> (ChildProcess, String) {
            let child = try ChildProcess.devicectl(["backup", tree, "-o", archive])
            let temporary = "\(out)/.b.tar.devicectl-tmp-\(child.pid)"
            let reached = child.wait(upTo: 20) {
                var status = stat()
                return stat(temporary, &status) == 0 && Int(status.st_size) >= bytes
            }
            #expect(reached, "the backup never wrote \(bytes) bytes: \(child.stderr)")
            child.signal(signal)
            return (child, temporary)
        }

        /// The archive at the path is still the previous one, byte for byte.
        func expectPreviousArchiveIntact(sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(try Data(contentsOf: URL(fileURLWithPath: archive)) == previous, sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [1 << 20, 60 << 20])
    func sigkillLeavesOnlyATemporaryFileThatIsNeverABackup(_ bytes: Int) throws {
        try PhoneScratch.withFaults { scratch in
            let fixture = try Fixture(scratch)
            let (child, temporary) = try fixture.interrupt(with: SIGKILL, after: bytes)
            #expect(child.killedBy == SIGKILL)
            try fixture.expectPreviousArchiveIntact()
            #expect(try directoryNames(in: fixture.out) == [".b.tar.devicectl-tmp-\(child.pid)", "b.tar"])
            // Whatever it holds, the temporary file does not pass for an archive.
            // Truncated wherever the kill came: between members (libarchive's "Truncated tar archive") or inside
            // one (the reader's "the archive is truncated (it ends inside a member ...)"), depending on timing.
            let verified = try scratch.fails(["verify", temporary])
            #expect(verified.stderr.lowercased().contains("truncated"), "\(verified.stderr)")
            try scratch.fails(["list", temporary])
            let root = try scratch.freshDevice("phone")
            let before = try TreeSnapshot.take(root)
            try scratch.fails(["restore", temporary, root], mentioning: ["nothing was restored"])
            #expect(try TreeSnapshot.take(root) == before)
            // The next backup to the same path removes it.
            try scratch.ok(["backup", fixture.tree, "-o", fixture.archive])
            #expect(try directoryNames(in: fixture.out) == ["b.tar"])
            try scratch.ok(["verify", fixture.archive])
        }
    }

    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func aSignalRemovesTheTemporaryFileAndKeepsThePreviousArchive(_ signal: Int32) throws {
        try PhoneScratch.withFaults { scratch in
            let fixture = try Fixture(scratch)
            let (child, _) = try fixture.interrupt(with: signal, after: 20 << 20)
            #expect(child.killedBy == signal, "exit \(child.status): \(child.stderr)")
            // Said as a restore says it; the shell reports 128 + the signal.
            let name = signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "SIGHUP"
            #expect(child.stderr.contains("devicectl: interrupted by \(name); the backup did not complete"), "\(child.stderr)")
            try fixture.expectPreviousArchiveIntact()
            #expect(try directoryNames(in: fixture.out) == ["b.tar"])
        }
    }

    /// A compressed backup writes from its output thread: a signal delivered while that thread writes (strace
    /// injects it at the third write, of dozens: the tree is random bytes) still removes the temporary file and
    /// keeps the previous archive.
    @Test(arguments: ["zstd", "gzip"])
    func aSignalDuringACompressedBackupRemovesTheTemporaryFile(_ compression: String) throws {
        try PhoneScratch.withFaults { scratch in
            let fixture = try Fixture(scratch)
            let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
            for index in 0..<80 {
                try random.readData(ofLength: 256 << 10)
                    .write(to: URL(fileURLWithPath: "\(fixture.tree)/d\(index % 10)/f\(index)"))
            }
            let result = try scratch.runInjecting(
                "write", "signal=INT", when: "3",
                ["backup", fixture.tree, "-o", fixture.archive, "--compression", compression])
            #expect(result.status != 0, "\(result.stderr)")  // killed by the signal, after the clean-up
            try fixture.expectPreviousArchiveIntact()
            #expect(try directoryNames(in: fixture.out) == ["b.tar"])
        }
    }

    @Test func killedJustBeforeTheRenameTheCompleteTemporaryFileIsStillNotAtThePath() throws {
        try PhoneScratch.withFaults { scratch in
            let fixture = try Fixture(scratch)
            // The archive is complete and flushed; SIGKILL arrives at the rename that would publish it.
            let killed = try scratch.runInjecting(
                "rename", "signal=KILL", when: "1", ["backup", fixture.tree, "-o", fixture.archive])
            #expect(killed.status == SIGKILL || killed.status == 128 + SIGKILL, "\(killed.stderr)")
            try fixture.expectPreviousArchiveIntact()
            let names = try directoryNames(in: fixture.out)
            #expect(
                names.count == 2 && names.contains("b.tar") && names.contains { $0.hasPrefix(".b.tar.devicectl-tmp-") },
                "\(names)")
            try scratch.ok(["backup", fixture.tree, "-o", fixture.archive])
            #expect(try directoryNames(in: fixture.out) == ["b.tar"])
        }
    }

    @Test func aStreamCutByAKillFailsVerifyAndRestore() throws {
        try PhoneScratch.withFaults { scratch in
            let fixture = try Fixture(scratch)
            let stream = scratch.dir + "/stream.tar"
            let child = try ChildProcess(
                "/bin/sh",
                ["-c", "exec \"$1\" backup \"$2\" -o - > \"$3\"", "sh", DevicectlBinary.path, fixture.tree, stream])
            #expect(
                child.wait(upTo: 20) {
                    var status = stat()
                    return stat(stream, &status) == 0 && status.st_size >= 30 << 20
                })
            child.signal(SIGKILL)
            try scratch.fails(["verify", stream])
            let root = try scratch.freshDevice("phone")
            let before = try TreeSnapshot.take(root)
            try scratch.fails(["restore", stream, root], mentioning: ["nothing was restored"])
            #expect(try TreeSnapshot.take(root) == before)
        }
    }
}
