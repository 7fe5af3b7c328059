// TornRewriteTests: a file rewritten in place while the backup reads it, its size kept and its mtime put back,
// fails the backup: only its ctime shows the rewrite. Without that check the archive held the old start and the
// new end under a digest of exactly those bytes, and verify called it intact. The rewrite runs between two reads
// of the file (the engine's `duringRead` hook), so it hits the same point every run.
@testable import BackupKit
import Foundation
import Glibc
import TarKit
import TestSupport
import Testing

@Suite struct TornRewriteTests {
    /// How the file is rewritten: each keeps its size and then sets its mtime back.
    enum Rewrite: String, CaseIterable, Sendable {
        /// The part not read yet (the torn case: old start, new end).
        case unreadPart
        /// The part already read (the archive would hold data the file no longer has).
        case readPart
        /// Truncated to nothing and written again, as an editor saving in place does.
        case truncateAndWrite
    }

    static let size = 1 << 20
    static let mtime = timespec(tv_sec: 1_700_000_000, tv_nsec: 123_456_789)

    @Test(arguments: Rewrite.allCases, [Compression.none, .gzip])
    func aFileRewrittenWhileReadWithItsMtimePutBackFailsTheBackup(_ rewrite: Rewrite, _ compression: Compression)
        throws
    {
        try PhoneScratch.withFaults { scratch in
            let tree = scratch.dir + "/tree", out = scratch.dir + "/out"
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            _ = try PhoneScratch.fill(tree, files: 1, size: 4096)
            let file = tree + "/big.bin"
            try Data(repeating: UInt8(ascii: "A"), count: Self.size).write(to: URL(fileURLWithPath: file))
            var times = [Self.mtime, Self.mtime]
            try #require(utimensat(AT_FDCWD, file, &times, 0) == 0)

            var rewrites: [UInt64] = []
            let request = BackupRequest(
                root: tree, output: .file(out + "/b.tar"), compression: compression,
                created: Date(timeIntervalSince1970: 1_800_000_000), tool: "devicectl test")
            let error = #expect(throws: BackupError.self) {
                try BackupEngine.backup(
                    request, progress: nil, warning: { _ in }, afterRead: nil,
                    duringRead: { path, done in
                        guard path == file, rewrites.isEmpty else { return }
                        rewrites.append(done)
                        Self.apply(rewrite, to: file, done: done)
                    })
            }
            // The rewrite happened once, between two reads, and left size and mtime exactly as they were.
            #expect(rewrites.count == 1)
            #expect(rewrites.allSatisfy { $0 > 0 && $0 < UInt64(Self.size) }, "\(rewrites)")
            var status = stat()
            try #require(stat(file, &status) == 0)
            #expect(status.st_size == Self.size)
            #expect(status.st_mtim.tv_sec == Self.mtime.tv_sec && status.st_mtim.tv_nsec == Self.mtime.tv_nsec)
            let message = error.map { "\($0)" } ?? "none: the backup was written"
            let expected = "\(file) changed while it was being read (its status change time moved"
            #expect(message.contains(expected), "\(message)")
            #expect(message.contains("the backup was not written"))
            #expect(try directoryNames(in: out) == [])
        }
    }

    @Test func theSameFileLeftAloneBetweenReadsIsArchivedWhole() throws {
        try PhoneScratch.withFaults { scratch in
            let tree = scratch.dir + "/tree", archive = scratch.dir + "/b.tar"
            try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
            try Data(repeating: UInt8(ascii: "A"), count: Self.size).write(to: URL(fileURLWithPath: tree + "/big.bin"))
            var reads = 0
            let request = BackupRequest(root: tree, output: .file(archive), tool: "devicectl test")
            let summary = try BackupEngine.backup(
                request, progress: nil, warning: { _ in }, afterRead: nil, duringRead: { _, _ in reads += 1 })
            #expect(reads > 0)
            #expect(summary.counts.files == 1 && summary.counts.bytes == UInt64(Self.size))
            let verified = try DevicectlBinary.run(["verify", archive])
            #expect(verified.status == 0, "\(verified.stderr)")
        }
    }

    /// Rewrites `file` (of `size` bytes, `done` of them read) with "B"s as `rewrite` says, then puts its mtime back.
    private static func apply(_ rewrite: Rewrite, to file: String, done: UInt64) {
        let fd = open(file, O_WRONLY | O_CLOEXEC)
        precondition(fd >= 0, "open \(file)")
        defer { close(fd) }
        let (offset, length): (Int, Int) =
            switch rewrite {
            case .unreadPart: (Int(done), size - Int(done))
            case .readPart: (0, Int(done))
            case .truncateAndWrite: (0, size)
            }
        if rewrite == .truncateAndWrite { precondition(ftruncate(fd, 0) == 0) }
        let bytes = [UInt8](repeating: UInt8(ascii: "B"), count: length)
        precondition(pwrite(fd, bytes, length, off_t(offset)) == length, "pwrite \(file)")
        var times = [mtime, mtime]
        precondition(futimens(fd, &times) == 0, "futimens \(file)")
    }
}
