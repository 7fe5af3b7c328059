// DecompressionBombTests: a few kilobytes of zstd that expand to a huge member. Verify reads it all (it must
// hash it), so SIGINT has to stop it: the reader polls between decompressed blocks, not only between reads of
// the (tiny) input. Fuzzer-style finding: `verify` of a 134 kB zstd bomb ignored Ctrl-C until 4 GB were hashed.
// (Restore bounds the stream by the free space; see HostileArchiveTests.)
import BackupKit
import Foundation
import Glibc
import TestSupport
import Testing

@Suite struct DecompressionBombTests {
    @Test func verifyOfABombStopsAtSIGINT() throws {
        try withTemporaryDirectory { dir in
            let bomb = dir + "/bomb.tar.zst"
            // A pax tar header for a 256 MiB file of zeros, the zeros, the end mark: through zstd.
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
            let made = try Shell.run("python3", ["-c", script, bomb])
            try #require(made.status == 0, "\(made.stderr)")
            let size = try FileManager.default.attributesOfItem(atPath: bomb)[.size] as? Int ?? 0
            #expect(size < (64 << 10))
            // SIGINT arrives at the sixth poll: long before the 256 MiB are through.
            let polls = PollCounter()
            let report = try ArchiveVerification.verify(archive: bomb) { polls.next() >= 6 ? SIGINT : nil }
            #expect(report.problems.contains { $0.contains("interrupted by SIGINT") }, "\(report.problems)")
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
