// HandOverTests: files the reading thread hands over to the formatting thread to read (`ArchivingVisitor`'s
// hand-over): the same archive as read on the reading thread, every descriptor closed, none carried from the
// policy's descriptor limit on, and a file changed after it was handed over fails the backup as on the reading thread.
@testable import BackupKit
import Foundation
import Glibc
import SystemKit
import TarKit
import TestSupport
import Testing

@Suite struct HandOverTests {
    private func request(_ root: String, _ archive: String) -> BackupRequest {
        BackupRequest(
            root: root, output: .file(archive), created: Date(timeIntervalSince1970: 1_800_000_000),
            tool: "devicectl test")
    }

    /// The numbers of this process's descriptors open on files under `directory` (other tests' files are elsewhere).
    private static func descriptors(under directory: String) -> [Int32] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
        return entries.compactMap { entry in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)"),
                target.hasPrefix(directory + "/")
            else { return nil }
            return Int32(entry)
        }
    }

    private static func openFiles(under directory: String) -> Int { descriptors(under: directory).count }

    private static func random(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    @Test func handedOverFilesMakeTheSameArchiveAndEveryDescriptorIsClosed() throws {
        try withTemporaryDirectory { dir in
            let tree = TreeBuilder(root: "\(dir)/src")
            // Larger than the formatting thread's reads (256 KiB), at the threshold, just under it, empty and small;
            // a hard link to a large one; a sparse one (not handed over: its holes are asked for).
            try tree.file("big/a.bin", bytes: Self.random(700_000))
            try tree.file("big/b.bin", bytes: Self.random(Int(HandOverPolicy.standard.from)))
            try tree.file("big/c.bin", bytes: Self.random(Int(HandOverPolicy.standard.from) - 1))
            let linked = try tree.file("big/d.bin", bytes: Self.random(300_000))
            #expect(link(linked, "\(tree.root)/big/d-link.bin") == 0)
            try tree.file("empty")
            for index in 0..<40 { try tree.file("small/\(index).txt", String(repeating: "s\(index)", count: index * 90)) }
            let sparse = "\(tree.root)/sparse.img"
            let fd = open(sparse, O_CREAT | O_WRONLY, 0o644)
            #expect(pwrite(fd, "data", 4, 0) == 4)
            #expect(ftruncate(fd, 4 << 20) == 0)
            close(fd)

            var archives: [[UInt8]] = []
            // nil: the reading thread reads every file; from 0: it hands over every whole file, the empty one included.
            let everything = HandOverPolicy(from: 0, descriptorLimit: .max)
            for policy in [nil, .standard, everything] as [HandOverPolicy?] {
                let archive = "\(dir)/\(policy.map { String($0.from) } ?? "none").tar"
                let summary = try BackupEngine.backup(
                    request(tree.root, archive), progress: nil, warning: { _ in }, afterRead: nil, handOver: policy)
                #expect(summary.counts.files == 46 && summary.counts.hardlinks == 1, "\(summary.counts)")
                #expect(Self.openFiles(under: tree.root) == 0, "\(String(describing: policy))")
                archives.append(Array(try Data(contentsOf: URL(fileURLWithPath: archive))))
                for line in try TarTool.manifest(archive) where line["kind"] as? String == "file" {
                    let path = line["path"] as! String
                    let data = try Data(contentsOf: URL(fileURLWithPath: "\(tree.root)/\(path)"))
                    #expect(line["sha256"] as? String == (try SHA256Digest.hex(of: Array(data))), "\(path)")
                }
            }
            for other in archives.dropFirst() { #expect(other == archives[0]) }
        }
    }

    /// The formatting thread waits at its first batch until every file is packed (or the reading thread waits for a
    /// batch): the batches then carry every descriptor handed over so far, and none numbered from the policy's limit
    /// on (set 300 above the lowest free number now: other tests in this process open files too); the files past it
    /// are read on the reading thread. Handing every file over would carry all 400.
    @Test func noDescriptorFromTheLimitOnIsCarried() throws {
        try withTemporaryDirectory { dir in
            let tree = TreeBuilder(root: "\(dir)/src")
            let files = 400
            for index in 0..<files {
                try tree.file(String(format: "f/%03d.bin", index), bytes: [UInt8](repeating: UInt8(index % 251), count: 65_536))
            }
            let lowest = open("/dev/null", O_RDONLY)
            try #require(lowest >= 0)
            close(lowest)
            let policy = HandOverPolicy(from: 65_536, descriptorLimit: lowest + 300)
            let packed = Counter()
            let held = Counter()
            let carried = Carried()
            let root = tree.root
            let archive = "\(dir)/b.tar"
            let summary = try BackupEngine.backup(
                request(tree.root, archive), progress: nil, warning: { _ in }, afterRead: nil,
                stored: { path in if path.kind == .regular { packed.add() } },
                formatterGate: { pipe in
                    guard held.value == 0 else { return }
                    held.add()
                    #expect(waitUntil(seconds: 30) { packed.value == files || pipe.producerIsWaiting })
                    carried.set(Self.descriptors(under: root))
                },
                handOver: policy)
            #expect(summary.counts.files == files)
            // Open under the tree: the directory being walked, the files carried, and the one file the reading thread
            // is reading itself while it waits for a batch (the first past the limit). How many are carried depends on
            // how many descriptors the other tests hold meanwhile (90 in one full run): some.
            #expect(carried.value.count > 20, "\(carried.value)")
            #expect(
                carried.value.filter { $0 >= policy.descriptorLimit }.count <= 1, "\(carried.value) from \(lowest)")
            #expect(Self.openFiles(under: tree.root) == 0)
            let verified = try DevicectlBinary.run(["verify", archive])
            #expect(verified.status == 0, "\(verified.stderr)")
        }
    }

    /// While the formatting thread waits for a CPU (it shares a core with another process) the reading thread reads
    /// every file itself: a file handed over could not have its hash taken back. No formatting thread here: the
    /// batches stay queued with what they carry.
    @Test(arguments: [false, true]) func nothingIsHandedOverWhileTheFormatterWaitsForACPU(contended: Bool) throws {
        try withTemporaryDirectory { dir in
            let tree = TreeBuilder(root: "\(dir)/src")
            for index in 0..<10 { try tree.file("f/\(index).bin", bytes: Self.random(100_000)) }
            let pipe = BatchPipe(count: BackupEngine.batchCount, size: BackupEngine.batchSize, wakeAfter: 1)
            pipe.setFormatterContended(contended)
            let visitor = try ArchivingVisitor(
                pipe: pipe, progress: ProgressThrottle(nil), warn: { _ in }, placement: .byBacklog,
                handsOver: HandOverPolicy(from: 65_536, descriptorLimit: .max))
            try TreeWalker(root: tree.root, rules: ExclusionRules(deviceRoot: false), visitor: visitor, ignoring: [])
                .run()
            visitor.finish()
            #expect(visitor.tally.counts.files == 10)
            #expect(Self.openFiles(under: tree.root) == (contended ? 0 : 10))
            pipe.cancel()
        }
    }

    /// How a handed-over file changes between the reading thread's status and the formatting thread's read.
    enum Change: String, CaseIterable, Sendable {
        case grows, shrinks, rewrittenWithItsMtimePutBack
    }

    @Test(arguments: Change.allCases) func aFileChangedAfterItWasHandedOverFailsTheBackup(_ change: Change) throws {
        try withTemporaryDirectory { dir in
            let tree = TreeBuilder(root: "\(dir)/src")
            try FileManager.default.createDirectory(atPath: "\(dir)/out", withIntermediateDirectories: false)
            for index in 0..<20 { try tree.file("a/\(index).txt", "small \(index)") }
            let size = 1 << 20
            let file = try tree.file("b/big.bin", bytes: [UInt8](repeating: 65, count: size))
            let mtime = timespec(tv_sec: 1_700_000_000, tv_nsec: 123_456_789)
            var times = [mtime, mtime]
            try #require(utimensat(AT_FDCWD, file, &times, 0) == 0)
            try tree.file("c/after.txt", "after")
            let handedOver = Counter()
            // The change lands after the reading thread took the file's status and packed it, before the formatting
            // thread drains the batch that carries it: the first batch waits for it.
            let error = #expect(throws: BackupError.self) {
                // No descriptor limit: other tests in this process hold files open, the numbers this one gets vary.
                try BackupEngine.backup(
                    request(tree.root, "\(dir)/out/b.tar"), progress: nil, warning: { _ in }, afterRead: nil,
                    stored: { path in if path.path == "b/big.bin" { handedOver.add() } },
                    formatterGate: { _ in
                        guard handedOver.value < 2 else { return }
                        #expect(waitUntil(seconds: 30) { handedOver.value == 1 })
                        Self.apply(change, to: file, size: size, mtime: mtime)
                        handedOver.add()
                    }, handOver: HandOverPolicy(from: 65_536, descriptorLimit: .max))
            }
            let message = error.map { "\($0)" } ?? "none: the backup was written"
            let detail =
                switch change {
                case .grows: "(size \(size) -> \(size + 4) bytes)"
                case .shrinks: "(it ended after \(size / 2) of \(size) bytes)"
                case .rewrittenWithItsMtimePutBack: "(its status change time moved"
                }
            #expect(message.contains("\(file) changed while it was being read \(detail)"), "\(message)")
            #expect(try directoryNames(in: "\(dir)/out") == [])
            #expect(Self.openFiles(under: tree.root) == 0)
        }
    }

    private static func apply(_ change: Change, to file: String, size: Int, mtime: timespec) {
        let fd = open(file, O_WRONLY)
        defer { close(fd) }
        switch change {
        case .grows:
            #expect(pwrite(fd, "more", 4, off_t(size)) == 4)
        case .shrinks:
            #expect(ftruncate(fd, off_t(size / 2)) == 0)
        case .rewrittenWithItsMtimePutBack:
            #expect(pwrite(fd, "BBBB", 4, off_t(size / 2)) == 4)
            var times = [mtime, mtime]
            #expect(futimens(fd, &times) == 0)
        }
    }

    /// Descriptor numbers seen on the formatting thread, read on the test's.
    private final class Carried: @unchecked Sendable {
        private let lock = ConditionVariable()
        private var numbers: [Int32] = []
        var value: [Int32] {
            lock.lock()
            defer { lock.unlock() }
            return numbers
        }
        func set(_ value: [Int32]) {
            lock.lock()
            numbers = value
            lock.unlock()
        }
    }

    /// A count shared between the test's threads.
    private final class Counter: @unchecked Sendable {
        private let lock = ConditionVariable()
        private var count = 0
        var value: Int {
            lock.lock()
            defer { lock.unlock() }
            return count
        }
        func add() {
            lock.lock()
            count += 1
            lock.unlock()
        }
    }
}
