// BackupEngineTests: the engine's failure modes (changed, vanished files), manifest order and spill,
// tallies by reason, and dry runs agreeing with backups.
@testable import BackupKit
import Foundation
import Glibc
import SystemKit
import TarKit
import TestSupport
import Testing

@Suite struct BackupEngineTests {
    private func request(_ root: String, _ archive: String, patterns: [String] = []) -> BackupRequest {
        BackupRequest(
            root: root, output: .file(archive), patterns: patterns.map { try! ExclusionPattern($0) },
            created: Date(timeIntervalSince1970: 1_800_000_000), tool: "devicectl test")
    }

    private func backup(
        _ root: String, _ archive: String, patterns: [String] = [], afterRead: ((String) -> Void)? = nil
    ) throws -> BackupSummary {
        try BackupEngine.backup(request(root, archive, patterns: patterns), progress: nil, warning: { _ in }, afterRead: afterRead)
    }

    @Test func aFileThatGrowsWhileReadFailsNamingItAndLeavesNothing() throws {
        try withTemporaryDirectory { dir in
            let tree = TreeBuilder(root: "\(dir)/src")
            try tree.file("a.txt", "alpha")
            let growing = try tree.file("b/log.txt", String(repeating: "x", count: 300_000))
            try tree.file("c.txt", "gamma")
            let archive = "\(dir)/out/backup.tar"
            try FileManager.default.createDirectory(atPath: "\(dir)/out", withIntermediateDirectories: false)
            let error = #expect(throws: BackupError.self) {
                try backup(tree.root, archive) { path in
                    guard path.hasSuffix("log.txt") else { return }
                    let handle = FileHandle(forWritingAtPath: growing)!
                    handle.seekToEndOfFile()
                    handle.write(Data("more".utf8))
                    handle.closeFile()
                }
            }
            #expect("\(error!)".contains("\(tree.root)/b/log.txt changed while it was being read"), "\(error!)")
            #expect(try directoryNames(in: "\(dir)/out") == [])
        }
    }

    @Test func aFileRewrittenInPlaceFailsOnItsMtime() throws {
        try withTemporaryDirectory { dir in
            let tree = TreeBuilder(root: "\(dir)/src")
            let path = try tree.file("doc.txt", "version 1")
            let error = #expect(throws: BackupError.self) {
                try backup(tree.root, "\(dir)/out.tar") { _ in
                    var times = [timespec(tv_sec: 1_700_000_000, tv_nsec: 0), timespec(tv_sec: 1_700_000_000, tv_nsec: 5)]
                    utimensat(AT_FDCWD, path, &times, 0)
                }
            }
            #expect("\(error!)".contains("\(path) changed while it was being read (its modification time changed)"))
            #expect(try directoryNames(in: dir) == ["src"])
        }
    }

    @Test func aFileThatVanishesAfterItWasListedFailsNamingIt() throws {
        try withTemporaryDirectory { dir in
            let tree = TreeBuilder(root: "\(dir)/src")
            try tree.file("a.txt", "first")
            let doomed = try tree.file("b.txt", "second")
            let error = #expect(throws: BackupError.self) {
                try backup(tree.root, "\(dir)/out.tar") { path in
                    if path.hasSuffix("a.txt") { unlink(doomed) }
                }
            }
            guard case .unreadable(let path, let cause) = error! else {
                Issue.record("expected unreadable, got \(error!)")
                return
            }
            #expect(path == doomed)
            #expect(cause.code == ENOENT)
            #expect("\(error!)".contains("cannot read \(doomed)"))
            #expect(try directoryNames(in: dir) == ["src"])
        }
    }

    @Test func eitherThreadHashingGivesTheSameArchiveFormattedInlineOrNot() throws {
        try withTemporaryDirectory { dir in
            let tree = TreeBuilder(root: "\(dir)/src")
            var generator = SystemRandomNumberGenerator()
            // A file spanning several batches, small ones, an empty one, a hard link and a symlink.
            try tree.file("big.bin", bytes: (0..<700_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
            for index in 0..<50 { try tree.file("small/\(index).txt", String(repeating: "s\(index)", count: index * 40)) }
            let empty = try tree.file("empty")
            #expect(link(empty, "\(tree.root)/empty-link") == 0)
            #expect(symlink("big.bin", "\(tree.root)/to-big") == 0)
            // A plain tar formats on a thread of its own; a compressed one on the reading thread (inline).
            for compression in [Compression.none, .zstd] {
                #expect(BackupEngine.formatsInline(compression) == (compression != .none))
                var archives: [[UInt8]] = []
                for placement in [HashPlacement.reader, .formatter] {
                    let archive = "\(dir)/\(placement).\(compression.rawValue).tar"
                    var backup = request(tree.root, archive)
                    backup.compression = compression
                    _ = try BackupEngine.backup(backup, progress: nil, warning: { _ in }, afterRead: nil, hashing: placement)
                    archives.append(Array(try Data(contentsOf: URL(fileURLWithPath: archive))))
                    for line in try TarTool.manifest(archive) where line["kind"] as? String == "file" {
                        let path = line["path"] as! String
                        let data = try Data(contentsOf: URL(fileURLWithPath: "\(tree.root)/\(path)"))
                        #expect(
                            line["sha256"] as? String == (try SHA256Digest.hex(of: Array(data))),
                            "\(compression) \(placement) \(path)")
                    }
                }
                for other in archives.dropFirst() { #expect(other == archives[0], "\(compression)") }
            }
        }
    }

    @Test func byBacklogHashesOnTheReadingThreadWhileTheFormatterIsBehind() throws {
        try withTemporaryDirectory { dir in
            let tree = TreeBuilder(root: "\(dir)/src")
            var generator = SystemRandomNumberGenerator()
            // 2.4 MB in 300 files: more than the pipe's batches hold (8 of 128 KiB, set here).
            for index in 0..<300 {
                try tree.file(
                    String(format: "f%d/%03d.bin", index % 3, index),
                    bytes: (0..<8192).map { _ in UInt8.random(in: 0...255, using: &generator) })
            }
            var archives: [[UInt8]] = []
            for placement in [HashPlacement.formatter, .byBacklog] {
                let archive = "\(dir)/\(placement).tar"
                let held = Held()
                // The formatting thread waits at its first batch until the reading thread, every batch full, waits
                // for it: the next batch's files are then the reading thread's to hash.
                let summary = try BackupEngine.backup(
                    request(tree.root, archive), progress: nil, warning: { _ in }, afterRead: nil, hashing: placement,
                    formatterGate: { pipe in
                        guard held.first() else { return }
                        waitUntil(seconds: 30) { pipe.producerIsWaiting }
                    }, batches: 8)
                if placement == .byBacklog {
                    #expect(summary.filesHashedByReader > 0)
                    #expect(summary.filesHashedByReader < 300)
                } else {
                    #expect(summary.filesHashedByReader == 0)
                }
                archives.append(Array(try Data(contentsOf: URL(fileURLWithPath: archive))))
                try expectDigestsMatch(archive, root: tree.root, "\(placement)")
            }
            #expect(archives[0] == archives[1])
        }
    }

    /// A formatting thread that is the slower at every batch (held 3 ms a batch): the reading
    /// thread sleeps on it, so its share (`HashShare`) grows until it hashes nearly every file. The backlog rule alone
    /// hashes about one batch in four here (the reader is woken with four spares and finds none left at the fourth).
    @Test func byBacklogTheReadersShareGrowsWhileItWaitsForTheFormatter() throws {
        try withTemporaryDirectory { dir in
            let tree = TreeBuilder(root: "\(dir)/src")
            // 1,200 files of 16 KiB: about 150 of the pipe's batches of 128 KiB (a pool of 8, set here).
            for index in 0..<1200 {
                try tree.file(
                    String(format: "f%d/%04d.bin", index % 4, index),
                    bytes: [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: 16384))
            }
            var archives: [[UInt8]] = []
            for placement in [HashPlacement.formatter, .byBacklog] {
                let archive = "\(dir)/\(placement).tar"
                // 3 ms a batch on the formatting thread: filling one from tmpfs takes the reader well under that.
                let slow: @Sendable (BatchPipe) -> Void = { _ in
                    let start = MonotonicClock.nanoseconds()
                    while MonotonicClock.nanoseconds() &- start < 3_000_000 {}
                }
                let summary = try BackupEngine.backup(
                    request(tree.root, archive), progress: nil, warning: { _ in }, afterRead: nil, hashing: placement,
                    formatterGate: placement == .formatter ? nil : slow, batches: 8)
                if placement == .byBacklog {
                    #expect(summary.filesHashedByReader > 720, "\(summary.filesHashedByReader) of 1200")
                } else {
                    #expect(summary.filesHashedByReader == 0)
                }
                archives.append(Array(try Data(contentsOf: URL(fileURLWithPath: archive))))
                try expectDigestsMatch(archive, root: tree.root, "\(placement)")
            }
            #expect(archives[0] == archives[1])
        }
    }

    /// While the formatting thread waits for a CPU, the reading thread hashes the files of every batch it takes with
    /// a batch waiting beside the one being drained; otherwise only when every batch is full. No formatting thread
    /// here: the batches stay queued (the tree fits in the pool), so the spares at each take are known exactly.
    @Test(arguments: [false, true]) func byBacklogHashesWheneverABatchWaitsWhileTheFormatterWaitsForACPU(
        contended: Bool
    ) throws {
        try withTemporaryDirectory { dir in
            let tree = TreeBuilder(root: "\(dir)/src")
            // 80 files of 8 KiB, about 700 KiB with their records: 6 of the pool's 8 batches of 128 KiB.
            for index in 0..<80 {
                try tree.file(String(format: "f/%03d.bin", index), bytes: [UInt8](repeating: UInt8(index), count: 8192))
            }
            let pipe = BatchPipe(count: BackupEngine.batchCount, size: BackupEngine.batchSize, wakeAfter: 1)
            pipe.setFormatterContended(contended)
            let visitor = try ArchivingVisitor(
                pipe: pipe, progress: ProgressThrottle(nil), warn: { _ in }, placement: .byBacklog)
            try TreeWalker(root: tree.root, rules: ExclusionRules(deviceRoot: false), visitor: visitor, ignoring: [])
                .run()
            visitor.finish()
            let taken = BackupEngine.batchCount - pipe.spareCount
            #expect(taken >= 5 && taken < BackupEngine.batchCount)
            if contended {
                // The first two batches' files are the formatter's (a spare beside each), every later one's the reader's.
                #expect(visitor.tally.filesHashedByReader >= 40)
                #expect(visitor.tally.filesHashedByReader < 80)
            } else {
                #expect(visitor.tally.filesHashedByReader == 0)
            }
            pipe.cancel()
        }
    }

    /// Every file line of `archive`'s manifest has the SHA-256 of the file under `root` (whichever thread hashed it).
    private func expectDigestsMatch(_ archive: String, root: String, _ label: String) throws {
        for line in try TarTool.manifest(archive) where line["kind"] as? String == "file" {
            let path = line["path"] as! String
            let data = try Data(contentsOf: URL(fileURLWithPath: "\(root)/\(path)"))
            #expect(line["sha256"] as? String == (try SHA256Digest.hex(of: Array(data))), "\(label) \(path)")
        }
    }

    /// True for the first call only (thread-safe).
    private final class Held: @unchecked Sendable {
        private let lock = ConditionVariable()
        private var called = false
        func first() -> Bool {
            lock.lock()
            defer { lock.unlock() }
            if called { return false }
            called = true
            return true
        }
    }

    @Test func manifestSpillsToDiskAndFollowsArchiveOrder() throws {
        try withTemporaryDirectory { dir in
            let tree = TreeBuilder(root: "\(dir)/src")
            // 1600 lines of ~250 bytes: well past the 256 KiB kept in memory.
            for index in 0..<1600 {
                let name = String(format: "d%02d/%05d-", index % 7, (index * 7919) % 1600) + String(repeating: "q", count: 110)
                try tree.file(name, "file \(index)")
            }
            let archive = "\(dir)/out.tar"
            let summary = try backup(tree.root, archive)
            #expect(summary.counts.files == 1600)
            let members = try TarTool.members(archive).filter { !$0.hasSuffix("/") }
            #expect(members.last == ".devicectl-manifest.jsonl")
            let lines = try TarTool.manifest(archive)
            #expect(lines.first?["kind"] as? String == "header")
            #expect(lines.dropLast().last?["kind"] as? String == "totals")
            #expect(lines.last?["kind"] as? String == "members")
            #expect(lines.last?["count"] as? Int == 1600 + 7)  // every file and the 7 directories
            let files = lines.filter { $0["kind"] as? String == "file" }
            #expect(files.map { $0["path"] as! String } == Array(members.dropLast()))
            #expect(files.map { $0["path"] as! String } == files.map { $0["path"] as! String }.sorted())
            let sample = files[1234]
            let data = try Data(contentsOf: URL(fileURLWithPath: "\(tree.root)/\(sample["path"] as! String)"))
            #expect(sample["sha256"] as? String == (try SHA256Digest.hex(of: Array(data))))
            #expect(sample["size"] as? Int == data.count)
            // The members line carries the SHA-256 of every manifest byte before it: the spilled lines are hashed on
            // a thread of their own while they are copied into the archive. GNU tar extracts them, sha256sum hashes.
            let extracted = try Shell.run("tar", ["-xOf", archive, ".devicectl-manifest.jsonl"])
            try #require(extracted.status == 0)
            let manifest = extracted.stdoutData
            let before = manifest[...(try #require(manifest.dropLast().lastIndex(of: 0x0A)))]
            #expect(before.count > ManifestWriter.memoryLimit)
            try before.write(to: URL(fileURLWithPath: "\(dir)/before"))
            let sum = try Shell.run("sha256sum", ["\(dir)/before"])
            #expect(lines.last?["manifestSha256"] as? String == sum.stdout.split(separator: " ").first.map(String.init))
        }
    }

    /// Linux allows `=` in an attribute name; a pax record (`key=value`) cannot hold it: read back, the name would end
    /// at the `=` and the archive fail its own members digest (it did, until 2026-12-03). Such an attribute is left out
    /// with a warning naming it, the others stored, and the archive verifies.
    @Test func anAttributeNameWithAnEqualsSignIsLeftOutAndSaid() throws {
        try withTemporaryDirectory { dir in
            let tree = TreeBuilder(root: "\(dir)/src")
            try tree.file("f.txt", "data")
            try tree.xattr("f.txt", "user.a=b", Array("hidden".utf8))
            try tree.xattr("f.txt", "user.kept", Array("shown".utf8))
            var warnings: [String] = []
            _ = try BackupEngine.backup(
                request(tree.root, "\(dir)/out.tar"), progress: nil, warning: { warnings.append($0) })
            #expect(warnings.count == 1 && warnings.first?.contains("user.a=b") == true, "\(warnings)")
            let report = try ArchiveVerification.verify(archive: "\(dir)/out.tar")
            #expect(report.problems.isEmpty && report.metadataChecked, "\(report.problems)")
            let reader = try ArchiveReader(path: "\(dir)/out.tar")
            defer { try? reader.close() }
            var names: [String]?
            while let member = try reader.next() {
                if member.path == "f.txt" { names = member.xattrs.map(\.name) }
            }
            #expect(names == ["user.kept"])
        }
    }

    @Test func tallyCountsEveryReasonAndDryRunAgrees() throws {
        try withTemporaryDirectory { dir in
            let tree = TreeBuilder(root: "\(dir)/src")
            try tree.file("keep/a.txt", "aaaa")
            try tree.file("keep/b.log", "bbbbbbbb")
            try tree.file("flagged.bin", "123456")
            try tree.xattr("flagged.bin", "user.com.apple.metadata:com_apple_backup_excludeItem", [1])
            try tree.xattr("flagged.bin", "user.xdg.robots.backup", Array("false".utf8))
            try tree.file("cache/CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55")
            try tree.file("cache/blob", "zz")
            try tree.file("big.log", "0123456789")
            try tree.file("a/hard", "linked")
            link("\(tree.root)/a/hard", "\(tree.root)/a/hard2")
            link("\(tree.root)/a/hard", "\(tree.root)/b.log")  // excluded by the pattern: not the link target

            let summary = try backup(tree.root, "\(dir)/out.tar", patterns: ["*.log"])
            // Stored: a/hard and keep/a.txt with data, a/hard2 as a link to a/hard.
            #expect(summary.counts.files == 2)
            #expect(summary.counts.hardlinks == 1)
            #expect(summary.counts.bytes == 6 + 4)
            #expect(summary.excluded.files == 5)
            #expect(summary.excluded.byReason["pattern"] == Manifest.Count(files: 3, bytes: 6 + 10 + 8))
            #expect(summary.excluded.byReason["apple-exclude-xattr"] == Manifest.Count(files: 1, bytes: 6))
            #expect(summary.excluded.byReason["xdg-robots-backup"] == Manifest.Count(files: 1, bytes: 6))
            #expect(summary.excluded.byReason["cachedir-tag"] == Manifest.Count(files: 1, bytes: 0))
            #expect(summary.excluded.bytes == 6 + 10 + 8 + 6)

            var listed: [ExcludedPath] = []
            let dry = try BackupEngine.dryRun(
                root: tree.root, patterns: [try ExclusionPattern("*.log")], excluded: { listed.append($0) },
                warning: { _ in })
            #expect(listed.map(\.path) == ["b.log", "big.log", "cache", "flagged.bin", "keep/b.log"])
            #expect(listed.first { $0.path == "flagged.bin" }?.reasons == [.appleExcludeXattr, .xdgRobotsBackup])
            #expect(dry.counts.files == summary.counts.files && dry.counts.bytes == summary.counts.bytes && dry.counts.hardlinks == summary.counts.hardlinks)
            #expect(dry.excluded == summary.excluded)
            #expect(try directoryNames(in: dir) == ["out.tar", "src"])
        }
    }
}
