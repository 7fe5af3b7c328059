// StagingPipelineTests: while the writer thread is behind, the reader applies the batches it fills itself, files
// that span batches included, and every file ends up with its bytes and times whichever thread wrote it; the digest
// log gets every file's SHA-256 (holes as zeros) in the order the files were queued.
import DeviceKit
import Foundation
import Glibc
import SystemKit
import TarKit
import Testing
import TestSupport

@testable import BackupKit

@Suite struct StagingPipelineTests {
    /// The bytes of file `index` (a large one spans several 128 KiB arenas).
    static func content(_ index: Int, large: Bool) -> [UInt8] {
        let count = large ? 300_000 + index : 700 + index % 300
        return (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index &* 7) }
    }

    /// An operation holds no reference (names, paths and digests are bytes in the batch's arena): queuing and applying
    /// one copies plain bytes, and no reference count is changed by both threads in turn.
    @Test func operationsHoldNoReference() {
        #expect(_isPOD(StagingOp.self))
    }

    @Test func theReaderAppliesBatchesWhileTheWriterIsBehind() throws {
        try withTemporaryDirectory { dir in
            let fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            try #require(fd >= 0)
            let tree = StagingTree(root: SharedDescriptor(FileDescriptor(rawValue: fd, path: dir)), objectLimit: .max)
            // The writer waits at its first batch until the gate opens (then every wait passes at once).
            let gate = DispatchSemaphore(value: 0)
            let log = DigestLog()
            let pipeline = try StagingPipeline(creation: .writer, digestLog: log, writerGate: {
                gate.wait()
                gate.signal()
            })
            // While the writer holds the first batch: four more small-file batches fill the hand-off
            // (`filesPerBatch` files a batch), then the reader must apply what it fills: a large file over three
            // arenas (each applied batch leaves it open for the next), small files, a second large file.
            var files: [(path: String, data: [UInt8])] = []
            for index in 0..<(5 * pipeline.filesPerBatch) { files.append(("small/\(index % 7)/f\(index)", Self.content(index, large: false))) }
            files.append(("large/a", Self.content(1, large: true)))
            for index in 0..<60 { files.append(("after/f\(index)", Self.content(index + 1000, large: false))) }
            files.append(("large/b", Self.content(2, large: true)))
            for index in 0..<300 { files.append(("late/\(index % 5)/f\(index)", Self.content(index + 2000, large: index % 40 == 0))) }
            // After the batches the writer holds (their files end at batch boundaries, so the reader may apply what
            // follows): each large file and every 11th small one has a hole in its middle (300 KiB in a large one:
            // more than one hole operation), every 13th ends in one, every 17th is only logged (checked, not
            // written) and every 19th is hashed by the reader (a large file in a restore) and logged after it is closed;
            // every other one of those, and the large files among the late ones, the reader also creates and writes
            // itself (`writesWhereRead`) and the thread that applies its batch finishes it. The others are hashed where they are written, the
            // large ones too (across batches and threads).
            let held = 5 * pipeline.filesPerBatch
            var expected: [DigestLog.Record] = []
            var opened = false
            var written: [(path: String, data: [UInt8], index: Int)] = []
            var writtenHereCount = 0
            for (index, file) in files.enumerated() {
                let path = Array(file.path.utf8)
                if index >= held && index % 17 == 5 {
                    let digest = SHA256Hash.of(file.data)
                    try pipeline.logDigest(path: path, size: UInt64(file.data.count), digest: digest)
                    expected.append(DigestLog.Record(path: path, size: UInt64(file.data.count), digest: digest))
                    continue
                }
                let large = file.data.count > 100_000
                let middleHole = index < held ? 0 : large ? 300_000 : index % 11 == 3 ? 5_000 : 0
                let tailHole = index >= held && index % 13 == 4 ? 7_000 : 0
                let split = file.data.count / 2
                var whole = Array(file.data[..<split]) + [UInt8](repeating: 0, count: middleHole)
                whole += file.data[split...] + [UInt8](repeating: 0, count: tailHole)
                let lateLarge = large && file.path.hasPrefix("late/")
                let hashedWhereWritten = index < held || (index % 19 != 7 && !lateLarge)
                let writtenHere = !hashedWhereWritten && (index % 2 == 1 || lateLarge)
                if writtenHere { writtenHereCount += 1 }
                try pipeline.addFile(
                    try MemberPath(path), permissions: 0o640, hashed: hashedWhereWritten, writtenHere: writtenHere,
                    in: tree)
                try file.data[..<split].withUnsafeBytes { try pipeline.addData($0, offset: 0) }
                // Holes are hashed as zeros where the file is written (a restore queues them only then).
                var hole = hashedWhereWritten ? middleHole : 0
                while hole > 0 {
                    let part = min(hole, StagingBatch.holeUnit)
                    try pipeline.addHole(part)
                    hole -= part
                }
                try file.data[split...].withUnsafeBytes { try pipeline.addData($0, offset: UInt64(split + middleHole)) }
                if hashedWhereWritten { try pipeline.addHole(tailHole) }
                try pipeline.closeFile(
                    truncateTo: tailHole > 0 ? UInt64(whole.count) : nil, owner: nil, chmod: nil, xattrs: [],
                    mtime: timespec(tv_sec: 1_700_000_000 + index, tv_nsec: 123),
                    logged: hashedWhereWritten ? (path, UInt64(whole.count)) : nil)
                let digest = SHA256Hash.of(whole)
                if !hashedWhereWritten {
                    try pipeline.logDigest(path: path, size: UInt64(whole.count), digest: digest)
                }
                expected.append(DigestLog.Record(path: path, size: UInt64(whole.count), digest: digest))
                written.append((file.path, whole, index))
                if !opened && pipeline.batchesAppliedByReader >= 3 {
                    gate.signal()
                    opened = true
                }
            }
            if !opened { gate.signal() }
            try pipeline.flush()
            let reader = try log.reader()
            var logged: [DigestLog.Record] = []
            while let record = try reader.peek() {
                logged.append(record)
                try reader.advance()
            }
            try pipeline.finish()
            #expect(opened, "the reader applied \(pipeline.batchesAppliedByReader) batches while the writer waited")
            #expect(pipeline.filesWrittenByReader == writtenHereCount && writtenHereCount > 10)
            #expect(logged.count == expected.count)
            for (got, want) in zip(logged, expected) {
                #expect(got == want, "\(String(decoding: want.path, as: UTF8.self))")
            }
            for file in written {
                let path = "\(dir)/\(file.path)"
                #expect(FileManager.default.contents(atPath: path).map([UInt8].init) == file.data, "\(file.path)")
                var status = stat()
                #expect(stat(path, &status) == 0)
                #expect(
                    status.st_mtim.tv_sec == 1_700_000_000 + file.index && status.st_mtim.tv_nsec == 123, "\(file.path)")
                #expect(status.st_mode & 0o777 == 0o640, "\(file.path)")
            }
        }
    }

    /// With a digest log (the writer hashes small files) a batch is handed over after `hashedFilesPerBatch` files,
    /// without one after `StagingBatch.maxFiles`. The writer is held at its first batch: the hand-off's batches and
    /// the one being filled take that many files each, and the next file makes the reader apply a batch itself. Files
    /// the reader writes itself (`writtenHere`) count alike, so the descriptors batches carry stay bounded.
    @Test(arguments: [(true, false), (false, false), (true, true)])
    func aBatchIsHandedOverAfterItsFiles(logged: Bool, writtenHere: Bool) throws {
        try withTemporaryDirectory { dir in
            let fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            try #require(fd >= 0)
            let tree = StagingTree(root: SharedDescriptor(FileDescriptor(rawValue: fd, path: dir)), objectLimit: .max)
            let gate = DispatchSemaphore(value: 0)
            let pipeline = try StagingPipeline(creation: .writer, digestLog: logged ? DigestLog() : nil, writerGate: {
                gate.wait()
                gate.signal()
            })
            let perBatch = logged ? 16 : 48
            #expect(pipeline.filesPerBatch == perBatch)
            // The reader writes a larger file itself only where it hashes it (a digest log), and not when pinned.
            #expect(pipeline.writesWhereRead(size: UInt64(StagingPipeline.readerWrittenSize)) == logged)
            #expect(!pipeline.writesWhereRead(size: UInt64(StagingPipeline.readerWrittenSize - 1)))
            let pinned = try StagingPipeline(creation: .reader, digestLog: logged ? DigestLog() : nil)
            #expect(!pinned.writesWhereRead(size: 1 << 30))
            try pinned.finish()
            func add(_ index: Int) throws {
                let data = Self.content(index, large: false)
                let path = Array("f\(index)".utf8)
                let hashed = !writtenHere && pipeline.hashesWhereWritten(size: UInt64(data.count))
                try pipeline.addFile(
                    try MemberPath(path), permissions: 0o640, hashed: hashed, writtenHere: writtenHere, in: tree)
                try data.withUnsafeBytes { try pipeline.addData($0, offset: 0) }
                try pipeline.closeFile(
                    truncateTo: nil, owner: nil, chmod: nil, xattrs: [], mtime: nil,
                    logged: hashed ? (path, UInt64(data.count)) : nil)
            }
            let filling = (StagingPipeline.depth + 1) * perBatch
            for index in 0..<filling { try add(index) }
            #expect(pipeline.batchesAppliedByReader == 0)
            try add(filling)
            #expect(pipeline.batchesAppliedByReader == 1)
            gate.signal()
            try pipeline.finish()
            #expect(pipeline.filesWrittenByReader == (writtenHere ? filling + 1 : 0))
            for index in 0...filling {
                #expect(
                    FileManager.default.contents(atPath: "\(dir)/f\(index)").map([UInt8].init)
                        == Self.content(index, large: false))
            }
        }
    }
}
