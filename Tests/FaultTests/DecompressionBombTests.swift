// DecompressionBombTests: a few kilobytes of zstd that expand to a huge member. Verify reads it all (it must
// hash it), so SIGINT has to stop it: the reader polls between decompressed blocks, not only between reads of
// the (tiny) input. Fuzzer-style finding: `verify` of a 134 kB zstd bomb ignored Ctrl-C until 4 GB were hashed.
// (Restore bounds the stream by the free space; see HostileArchiveTests.)
// Issue 13, finding 9: verify and list had no limit at all. Now restore, verify and list refuse a bomb beyond
// the limit at its header, an archive compressed twice at once, and read any bomb in bounded memory (the
// child's peak RSS, measured by /usr/bin/time, stays under 64 MiB).
import BackupKit
import Foundation
import Glibc
import TestSupport
import Testing

@Suite struct DecompressionBombTests {
    /// A pax tar holding a 256 MiB file of zeros (and the end mark), through `zstd -1`, at `path` (a few KiB).
    static func makeZstdZeros(_ path: String) throws {
        let script = """
            import subprocess, sys, tarfile
            info = tarfile.TarInfo('zeros.bin'); info.size = 256 << 20
            zstd = subprocess.Popen(['zstd', '-q', '-1', '-o', sys.argv[1]], stdin=subprocess.PIPE)
            zstd.stdin.write(info.tobuf(format=tarfile.PAX_FORMAT))
            block = bytes(1 << 20)
            for _ in range(256): zstd.stdin.write(block)
            zstd.stdin.write(bytes(10240)); zstd.stdin.close()
            sys.exit(zstd.wait())
            """
        let made = try Shell.run("python3", ["-c", script, path])
        try #require(made.status == 0, "\(made.stderr)")
    }

    @Test func verifyOfABombStopsAtSIGINT() throws {
        try withTemporaryDirectory { dir in
            let bomb = dir + "/bomb.tar.zst"
            try Self.makeZstdZeros(bomb)
            let size = try FileManager.default.attributesOfItem(atPath: bomb)[.size] as? Int ?? 0
            #expect(size < (64 << 10))
            // SIGINT arrives at the sixth poll: long before the 256 MiB are through.
            let polls = PollCounter()
            let report = try ArchiveVerification.verify(archive: bomb) { polls.next() >= 6 ? SIGINT : nil }
            #expect(report.problems.contains { $0.contains("interrupted by SIGINT") }, "\(report.problems)")
        }
    }
}

extension DecompressionBombTests {
    static let memoryBound = 64 << 20

    /// A gzip'd pax tar of one member of `gibibytes` GiB of zeros, as concatenated gzip members of 1 GiB each (so
    /// it is made in seconds); `thenXz` compresses the result again with xz.
    static func bomb(_ path: String, gibibytes: Int, thenXz: Bool) throws {
        let script = """
            import subprocess, sys, tarfile, zlib
            def gz(data):
                c = zlib.compressobj(9, zlib.DEFLATED, 31)
                return c.compress(data) + c.flush()
            c = zlib.compressobj(9, zlib.DEFLATED, 31)
            block = bytes(1 << 20)
            gib = b''.join(c.compress(block) for _ in range(1024)) + c.flush()
            info = tarfile.TarInfo('zeros.bin'); info.size = int(sys.argv[2]) << 30
            out = subprocess.Popen(['xz', '-1', '-T1', '-c'], stdin=subprocess.PIPE, stdout=open(sys.argv[1], 'wb')) \
                if sys.argv[3] == 'xz' else None
            sink = out.stdin if out else open(sys.argv[1], 'wb')
            sink.write(gz(info.tobuf(format=tarfile.PAX_FORMAT)))
            for _ in range(int(sys.argv[2])): sink.write(gib)
            sink.write(gz(bytes(10240))); sink.close()
            sys.exit(out.wait() if out else 0)
            """
        let made = try Shell.run("python3", ["-c", script, path, String(gibibytes), thenXz ? "xz" : "gzip"])
        try #require(made.status == 0, "\(made.stderr)")
    }

    /// Restore (onto a fresh device), verify and list of `archive`: each fails at once naming `messages`
    /// (restore's, verify's and list's), in bounded memory, and the device is unchanged.
    static func expectRefusedAtOnce(
        _ archive: String, _ scratch: PhoneScratch, restore: String, verify: String, list: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let root = try scratch.freshDevice("target")
        let before = try TreeSnapshot.take(root)
        for (arguments, message) in [
            (["restore", archive, root], restore), (["verify", archive], verify), (["list", archive], list),
        ] {
            let start = Date()
            let (result, peak) = try scratch.runMeasuringMemory(arguments)
            let seconds = Date().timeIntervalSince(start)
            PhoneScratch.expectCleanFailure(result, mentioning: [message], sourceLocation: sourceLocation)
            #expect(seconds < 10, "\(arguments[0]) took \(seconds) s", sourceLocation: sourceLocation)
            #expect(peak <= memoryBound, "\(arguments[0]): peak RSS \(peak >> 10) KiB", sourceLocation: sourceLocation)
        }
        let after = try TreeSnapshot.take(root)
        #expect(after == before, "\(snapshotDifference(before, after))", sourceLocation: sourceLocation)
    }

    /// 10 kB of xz around 64 MB of gzip around 64 GiB of zeros (the 171 kB reached 1 TiB this way).
    @Test func aBombCompressedTwiceIsRefusedAtOnce() throws {
        try PhoneScratch.withFaults { scratch in
            let bomb = scratch.dir + "/bomb.tar.gz.xz"
            try Self.bomb(bomb, gibibytes: 64, thenXz: true)
            let size = try FileManager.default.attributesOfItem(atPath: bomb)[.size] as? Int ?? 0
            #expect(size < (64 << 10))
            try Self.expectRefusedAtOnce(
                bomb, scratch, restore: "compressed twice (xz, then gzip)", verify: "compressed twice",
                list: "compressed twice")
        }
    }

    /// One gzip layer declaring at least 65 GiB of file data (65 MB of gzip): past verify's and list's 64 GiB,
    /// and past what the scratch file system can take (the size grows with its free space), so all three refuse
    /// it at the member's header.
    @Test func aBombBeyondTheLimitIsRefusedAtItsHeader() throws {
        try PhoneScratch.withFaults { scratch in
            var space = statvfs()
            try #require(statvfs(scratch.dir, &space) == 0)
            let free = Int(space.f_bavail) * Int(space.f_frsize)
            let bomb = scratch.dir + "/bomb.tar.gz"
            try Self.bomb(bomb, gibibytes: max(65, free >> 30 + 1), thenXz: false)
            try Self.expectRefusedAtOnce(
                bomb, scratch, restore: "member 'zeros.bin': the archive's files add up to",
                verify: "beyond the limit of 68719476736 bytes", list: "beyond the limit of 68719476736 bytes")
        }
    }

    /// A zstd bomb within every limit (256 MiB of zeros in a few kB) is read to its end in bounded memory.
    @Test func aBombWithinTheLimitIsReadInBoundedMemory() throws {
        try PhoneScratch.withFaults { scratch in
            let bomb = scratch.dir + "/bomb.tar.zst"
            try Self.makeZstdZeros(bomb)
            let root = scratch.dir + "/target"
            for arguments in [["verify", bomb], ["list", bomb], ["restore", bomb, root]] {
                let (result, peak) = try scratch.runMeasuringMemory(arguments)
                // No manifest: verify fails saying so; list and restore (with a warning) succeed.
                #expect(result.status == (arguments[0] == "verify" ? 1 : 0), "\(arguments): \(result.stderr)")
                #expect(peak <= Self.memoryBound, "\(arguments[0]): peak RSS \(peak >> 10) KiB")
            }
            // Told a smaller limit, verify and list refuse the member at its header.
            for command in ["verify", "list"] {
                try scratch.fails(
                    [command, "--max-bytes", "255M", bomb], mentioning: ["beyond the limit of 267386880 bytes"])
            }
        }
    }
}

/// Counts the interruption polls (called from the reader only, one thread).
final class PollCounter: @unchecked Sendable {
    private var count = 0
    private let lock = NSLock()
    func next() -> Int {
        lock.withLock {
            count += 1
            return count
        }
    }
}
