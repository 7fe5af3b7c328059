// StagingPipelineTests: while the writer thread is behind, the reader applies the batches it fills itself, files
// that span batches included, and every file ends up with its bytes and times whichever thread wrote it.
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

    @Test func theReaderAppliesBatchesWhileTheWriterIsBehind() throws {
        try withTemporaryDirectory { dir in
            let fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            try #require(fd >= 0)
            let tree = StagingTree(root: SharedDescriptor(FileDescriptor(rawValue: fd, path: dir)), objectLimit: .max)
            // The writer waits at its first batch until the gate opens (then every wait passes at once).
            let gate = DispatchSemaphore(value: 0)
            let pipeline = StagingPipeline(creation: .writer, writerGate: {
                gate.wait()
                gate.signal()
            })
            // While the writer holds the first batch: four more small-file batches fill the hand-off (48 files a
            // batch), then the reader must apply what it fills: a large file over three arenas (each applied batch
            // leaves it open for the next), small files, a second large file.
            var files: [(path: String, data: [UInt8])] = []
            for index in 0..<(5 * StagingBatch.maxFiles) { files.append(("small/\(index % 7)/f\(index)", Self.content(index, large: false))) }
            files.append(("large/a", Self.content(1, large: true)))
            for index in 0..<60 { files.append(("after/f\(index)", Self.content(index + 1000, large: false))) }
            files.append(("large/b", Self.content(2, large: true)))
            for index in 0..<300 { files.append(("late/\(index % 5)/f\(index)", Self.content(index + 2000, large: index % 40 == 0))) }
            var opened = false
            for (index, file) in files.enumerated() {
                try pipeline.addFile(try MemberPath(Array(file.path.utf8)), permissions: 0o640, in: tree)
                try file.data.withUnsafeBytes { try pipeline.addData($0, offset: 0) }
                try pipeline.add(
                    .closeFile(
                        truncateTo: nil, owner: nil, chmod: nil, xattrs: [],
                        mtime: timespec(tv_sec: 1_700_000_000 + index, tv_nsec: 123)))
                if !opened && pipeline.batchesAppliedByReader >= 3 {
                    gate.signal()
                    opened = true
                }
            }
            if !opened { gate.signal() }
            try pipeline.finish()
            #expect(opened, "the reader applied \(pipeline.batchesAppliedByReader) batches while the writer waited")
            for (index, file) in files.enumerated() {
                let path = "\(dir)/\(file.path)"
                #expect(FileManager.default.contents(atPath: path).map([UInt8].init) == file.data, "\(file.path)")
                var status = stat()
                #expect(stat(path, &status) == 0)
                #expect(status.st_mtim.tv_sec == 1_700_000_000 + index && status.st_mtim.tv_nsec == 123, "\(file.path)")
                #expect(status.st_mode & 0o777 == 0o640, "\(file.path)")
            }
        }
    }
}
