// SparseBackupTests: a file with holes is read by its data regions and stored as a GNU sparse 1.0 member; its
// manifest digest is that of its logical content (zeros in the holes) whichever thread hashes it, formatted inline
// or not; a hole written to while the file is read fails the backup.
@testable import BackupKit
import Foundation
import Glibc
import SystemKit
import TarKit
import TestSupport
import Testing

@Suite struct SparseBackupTests {
    static let kib: UInt64 = 1 << 10
    static let mib: UInt64 = 1 << 20
    static let created = Date(timeIntervalSince1970: 1_800_000_000)

    /// Data regions of `disk.img`: after a hole at the start, one spanning several batches, then two more, and a
    /// hole at the end.
    static let regions: [(offset: UInt64, length: UInt64)] = [
        (256 * kib, 300 * kib), (2 * mib, mib), (4 * mib, 64 * kib),
    ]

    /// A tree holding `disk.img` (6 MiB, 1.4 MiB of data), `holes.img` (1 MiB, all hole) and an ordinary file;
    /// returns each file's SHA-256, holes read as zeros.
    static func tree(_ root: String) throws -> [String: String] {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try SparseFile.make(root + "/disk.img", size: 6 * mib, data: regions)
        try SparseFile.make(root + "/holes.img", size: mib, data: [])
        try SparseFile.make(root + "/plain.bin", size: 200 * kib, data: [(0, 200 * kib)], seed: 2)
        var digests: [String: String] = [:]
        for name in ["disk.img", "holes.img", "plain.bin"] { digests[name] = try SparseFile.sha256(root + "/" + name) }
        return digests
    }

    /// Python's tarfile on each file member: GNU.sparse.major, minor, realsize and the data regions of its map.
    static func sparseHeaders(_ archive: String) throws -> [String: [String: Any]] {
        let script = """
            import json, sys, tarfile
            out = {}
            for m in tarfile.open(sys.argv[1]).getmembers():
                if m.isfile() and not m.name.startswith('.devicectl'):
                    h = m.pax_headers
                    out[m.name] = {'major': h.get('GNU.sparse.major'), 'minor': h.get('GNU.sparse.minor'),
                                   'realsize': h.get('GNU.sparse.realsize'), 'size': m.size,
                                   'data': [[o, n] for o, n in (m.sparse or []) if n > 0]}
            print(json.dumps(out))
            """
        let result = try Shell.run("python3", ["-c", script, archive])
        try #require(result.status == 0, "python3: \(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: [String: Any]])
    }

    @Test func sparseFilesAreStoredByTheirDataAndHashedAsTheirLogicalContentOnEitherThread() throws {
        try withTemporaryDirectory { dir in
            let root = dir + "/src"
            let digests = try Self.tree(root)
            for compression in [Compression.none, .zstd] {
                var archives: [[UInt8]] = []
                for placement in [HashPlacement.reader, .formatter] {
                    let archive = "\(dir)/\(placement).\(compression.rawValue).tar"
                    let request = BackupRequest(
                        root: root, output: .file(archive), compression: compression, created: Self.created,
                        tool: "devicectl test")
                    _ = try BackupEngine.backup(
                        request, progress: nil, warning: { _ in }, afterRead: nil, hashing: placement)
                    archives.append(Array(try Data(contentsOf: URL(fileURLWithPath: archive))))
                    let lines = try TarTool.manifest(archive).filter { $0["kind"] as? String == "file" }
                    #expect(lines.count == 3)
                    for line in lines {
                        let path = line["path"] as! String
                        #expect(line["sha256"] as? String == digests[path], "\(compression) \(placement) \(path)")
                    }
                }
                for other in archives.dropFirst() { #expect(other == archives[0], "\(compression)") }
            }
            // Only the data is stored: GNU sparse 1.0 members with their maps; the ordinary file as it was.
            let plain = dir + "/formatter.none.tar"
            let size = try FileStatus.of(plain).size
            #expect(size < 2 * Self.mib, "\(size) bytes")
            let members = try Self.sparseHeaders(plain)
            let disk = try #require(members["disk.img"])
            #expect(disk["major"] as? String == "1" && disk["minor"] as? String == "0")
            #expect(disk["realsize"] as? String == "\(6 * Self.mib)" && disk["size"] as? Int == Int(6 * Self.mib))
            #expect(disk["data"] as? [[Int]] == Self.regions.map { [Int($0.offset), Int($0.length)] })
            let holes = try #require(members["holes.img"])
            #expect(holes["major"] as? String == "1" && holes["realsize"] as? String == "\(Self.mib)")
            #expect(holes["data"] as? [[Int]] == [])
            #expect(members["plain.bin"]?["major"] is NSNull)
        }
    }

    @Test func aHoleWrittenToWhileTheFileIsReadFailsTheBackup() throws {
        try withTemporaryDirectory { dir in
            let root = dir + "/src", file = root + "/disk.img"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            try SparseFile.make(file, size: 5 * Self.mib, data: [(0, 512 * Self.kib), (4 * Self.mib, 512 * Self.kib)])
            var times = [timespec(tv_sec: 1_700_000_000, tv_nsec: 0), timespec(tv_sec: 1_700_000_000, tv_nsec: 0)]
            try #require(utimensat(AT_FDCWD, file, &times, 0) == 0)
            let request = BackupRequest(
                root: root, output: .file(dir + "/out.tar"), created: Self.created, tool: "devicectl test")
            var filled = false
            let error = #expect(throws: BackupError.self) {
                try BackupEngine.backup(
                    request, progress: nil, warning: { _ in }, afterRead: nil,
                    duringRead: { path, _ in
                        guard path == file, !filled else { return }
                        filled = true
                        // Data where the map said hole, the mtime put back: only the ctime tells.
                        let fd = open(file, O_WRONLY | O_CLOEXEC)
                        _ = pwrite(fd, [UInt8](repeating: 7, count: 4096), 4096, 2 << 20)
                        close(fd)
                        utimensat(AT_FDCWD, file, &times, 0)
                    })
            }
            #expect(filled)
            #expect("\(error!)".contains("\(file) changed while it was being read"), "\(error!)")
            #expect(try directoryNames(in: dir) == ["src"])
        }
    }
}
