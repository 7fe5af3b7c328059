// PaxWriterTests: TarKit's own pax writer (ArchiveWriter, PaxHeader) writes members that libarchive's reader (with the
// framing audit), GNU tar and bsdtar read back exactly, in every case where the ustar fields cannot hold a member.
import Foundation
import Glibc
import SystemKit
import TarKit
import Testing
import TestSupport

@Suite struct PaxWriterTests {
    struct Case {
        var path: [UInt8]
        var mode: UInt32
        var uid: UInt32 = 501
        var gid: UInt32 = 20
        var seconds: Int64 = 1_700_000_000
        var nanoseconds: UInt32 = 0
        var data: [UInt8] = []
        var symlink: [UInt8]?
        var hardlink: [UInt8]?
        var regions: [DataRegionMap.Region]?
        var attributes: [(String, [UInt8])] = []
    }

    static func cases() -> [Case] {
        let long = Array(String(repeating: "segment-\(0)/", count: 22).utf8) + Array("end.txt".utf8)  // 229 bytes
        let longer = Array(String(repeating: "x", count: 150).utf8) + [0x2F] + Array(String(repeating: "y", count: 150).utf8)
        var sparse = [UInt8](repeating: 0, count: 3 << 20)
        sparse.replaceSubrange((1 << 20)..<((1 << 20) + 3), with: Array("xyz".utf8))
        return [
            Case(path: Array("dir".utf8), mode: 0o040755),
            Case(path: Array("dir/plain.txt".utf8), mode: 0o100644, data: Array("hello\n".utf8)),
            Case(path: Array("dir/empty".utf8), mode: 0o100600),
            Case(path: long, mode: 0o100644, data: Array("split into prefix and name".utf8)),
            Case(path: longer, mode: 0o100644, data: [1, 2, 3]),
            Case(path: Array("dir/é中😀.txt".utf8), mode: 0o100644, data: [4]),
            Case(path: [0x64, 0x69, 0x72, 0x2F, 0x66, 0xFF, 0x67], mode: 0o100644, data: [5]),
            Case(path: Array("dir/owners".utf8), mode: 0o100640, uid: 3_000_000, gid: 4_000_000, data: [6]),
            Case(path: Array("dir/before-1970".utf8), mode: 0o100644, seconds: -315_619_200, nanoseconds: 500_000_000),
            Case(path: Array("dir/far-future".utf8), mode: 0o100644, seconds: 1_100_000_000_000, nanoseconds: 1),
            Case(path: Array("dir/nanoseconds".utf8), mode: 0o100644, nanoseconds: 123_456_789, data: [7]),
            Case(path: Array("dir/link".utf8), mode: 0o120777, symlink: Array(String(repeating: "../t", count: 40).utf8)),
            Case(path: Array("dir/hard".utf8), mode: 0o100644, hardlink: Array("dir/plain.txt".utf8)),
            Case(path: Array("dir/attributes".utf8), mode: 0o100644, data: [8],
                 attributes: [("user.binary", [0, 1, 2, 255, 10, 61]), ("user.text", Array("a=b".utf8))]),
            Case(path: Array("dir/sparse".utf8), mode: 0o100644, data: sparse,
                 regions: [DataRegionMap.Region(offset: 1 << 20, length: 4096)]),
            Case(path: Array("dir/all-hole".utf8), mode: 0o100644, data: [UInt8](repeating: 0, count: 8192), regions: []),
        ]
    }

    /// `bytes` NUL-terminated, as the sink hands names over.
    private static func withCString(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> Void) {
        (bytes + [0]).withUnsafeBufferPointer { body(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self)) }
    }

    private func write(_ cases: [Case], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        defer { Glibc.close(fd) }
        let writer = try ArchiveWriter(descriptor: fd, compression: .none, name: path)
        let entry = ArchiveEntry()
        for item in cases {
            entry.clear()
            Self.withCString(item.path) { entry.setPath($0) }
            entry.setMetadata(
                mode: item.mode, uid: item.uid, gid: item.gid, mtime: item.seconds, nanoseconds: item.nanoseconds,
                size: Int64(item.data.count))
            if let target = item.symlink { Self.withCString(target) { entry.setSymlink($0) } }
            if let target = item.hardlink { Self.withCString(target) { entry.setHardlink($0) } }
            for (name, value) in item.attributes {
                value.withUnsafeBytes { bytes in name.withCString { entry.addExtendedAttribute(name: $0, value: bytes) } }
            }
            if let regions = item.regions { try entry.setDataRegions(regions) }
            try writer.writeHeader(entry)
            if item.hardlink == nil { try item.data.withUnsafeBytes { try writer.writeData($0) } }
        }
        try writer.close()
    }

    /// Reads `archive` back with libarchive's reader (the framing audit on), calling `check` with each member, the case
    /// it was written from and the reader (for its data); every case comes back, in order.
    private func readBack(
        _ archive: String, _ cases: [Case], _ check: (ArchiveReader.Member, Case, ArchiveReader) throws -> Void
    ) throws {
        let reader = try ArchiveReader(path: archive)
        defer { try? reader.close() }
        var index = 0
        while let member = try reader.next() {
            try #require(index < cases.count)
            try check(member, cases[index], reader)
            index += 1
        }
        #expect(index == cases.count)
    }

    /// Owners, the time to the nanosecond and the attributes (libarchive lists a member's attributes last first).
    private func expectOwnersTimesAttributes(_ member: ArchiveReader.Member, _ item: Case, _ label: String) {
        #expect(member.uid == Int64(item.uid) && member.gid == Int64(item.gid), "\(label)")
        #expect(member.mtimeSeconds == item.seconds && member.mtimeNanoseconds == Int32(item.nanoseconds),
                "\(label): \(member.mtimeSeconds).\(member.mtimeNanoseconds)")
        let read = member.xattrs.sorted { $0.name < $1.name }, written = item.attributes.sorted { $0.0 < $1.0 }
        #expect(read.map(\.name) == written.map(\.0) && read.map(\.value) == written.map(\.1), "\(label): \(member.xattrs)")
    }

    @Test func libarchiveReadsBackEveryMember() throws {
        try withTemporaryDirectory { dir in
            let archive = dir + "/pax.tar"
            let cases = Self.cases()
            try write(cases, to: archive)
            try readBack(archive, cases) { member, item, reader in
                #expect(member.pathBytes == item.path || member.pathBytes == item.path + [0x2F], "\(member.path)")
                #expect(member.permissions == item.mode & 0o7777, "\(member.path)")
                expectOwnersTimesAttributes(member, item, "\(member.path)")
                if let target = item.symlink ?? item.hardlink { #expect(member.linkBytes == target, "\(member.path)") }
                #expect(member.isSparse == (item.regions != nil), "\(member.path)")
                if item.hardlink == nil && item.symlink == nil && item.mode & 0o170000 == 0o100000 {
                    #expect(member.size == Int64(item.data.count), "\(member.path)")
                    var content = [UInt8](repeating: 0, count: item.data.count)
                    while let block = try reader.readBlock() {
                        let start = Int(block.offset)
                        content.replaceSubrange(start..<(start + block.bytes.count), with: block.bytes)
                    }
                    #expect(content == item.data, "\(member.path)")
                }
            }
        }
    }

    /// Seeded members with every field at random (names of 1 to 400 bytes in UTF-8 from a pool with controls, spaces,
    /// `=`, non-ASCII and emoji; owners up to 2^32 - 1; times 2^40 s either side of 1970 with nanoseconds; symlinks;
    /// attributes with binary values) come back from libarchive's reader, with the framing audit on, exactly.
    @Test func seededMembersComeBackExactly() throws {
        var generator = SeededGenerator(seed: 20_261_203)
        let pool: [String] = ["a", "Z", "0", "-", "_", ".", " ", "=", "\u{7}", "\u{7F}", "é", "中", "😀", "ß", "\u{2028}"]
        func name(_ length: Int) -> [UInt8] {
            var bytes: [UInt8] = []
            while bytes.count < length {
                if !bytes.isEmpty && bytes.last != 0x2F && Int.random(in: 0..<12, using: &generator) == 0 { bytes.append(0x2F) }
                bytes += Array(pool.randomElement(using: &generator)!.utf8)
            }
            if bytes.last == 0x2F { bytes.removeLast() }
            // No `.` or `..` component (a directory listing never names one) and no empty one.
            let components = (bytes.first == 0x2F ? [0x61] + bytes : bytes).split(separator: 0x2F, omittingEmptySubsequences: true)
            return Array(components.map { $0.allSatisfy { $0 == 0x2E } ? [0x61] + $0 : Array($0) }.joined(separator: [0x2F]))
        }
        var cases: [Case] = []
        for index in 0..<400 {
            var item = Case(path: Array("m\(index)/".utf8) + name(Int.random(in: 1...400, using: &generator)), mode: 0o100644)
            item.mode = (Bool.random(using: &generator) ? 0o100000 : 0o120000) | UInt32.random(in: 0...0o7777, using: &generator)
            item.uid = UInt32.random(in: 0...UInt32.max, using: &generator)
            item.gid = UInt32.random(in: 0...UInt32.max, using: &generator)
            item.seconds = Int64.random(in: -(1 << 40)...(1 << 40), using: &generator)
            item.nanoseconds = Bool.random(using: &generator) ? 0 : UInt32.random(in: 0...999_999_999, using: &generator)
            if item.mode & 0o170000 == 0o120000 {
                item.symlink = name(Int.random(in: 1...300, using: &generator))
            } else {
                item.data = (0..<Int.random(in: 0...2_000, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            }
            // Linux keeps no `user.*` attribute on a symlink.
            for attribute in 0..<(item.symlink == nil ? Int.random(in: 0...2, using: &generator) : 0) {
                item.attributes.append(
                    ("user.k\(attribute)", (0..<Int.random(in: 0...300, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }))
            }
            cases.append(item)
        }
        try withTemporaryDirectory { dir in
            let archive = dir + "/seeded.tar"
            try write(cases, to: archive)
            var index = 0
            try readBack(archive, cases) { member, item, reader in
                #expect(member.pathBytes == item.path, "\(index)")
                #expect(member.permissions == item.mode & 0o7777 || item.symlink != nil, "\(index)")
                expectOwnersTimesAttributes(member, item, "\(index)")
                #expect(member.linkBytes == item.symlink, "\(index)")
                var content: [UInt8] = []
                while let block = try reader.readBlock() { content += block.bytes }
                #expect(content == item.data, "\(index)")
                index += 1
            }
            // GNU tar and bsdtar take every member too (GNU tar says a time is implausibly old or in the future).
            for tool in ["tar", "bsdtar"] {
                let target = dir + "/" + tool
                try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
                let result = try Shell.run(tool, ["--numeric-owner", "-xf", archive, "-C", target])
                let said = result.stderr.split(separator: "\n").filter {
                    !$0.contains("implausibly old time stamp") && !$0.contains("in the future")
                }
                #expect(result.status == 0 && said.isEmpty, "\(tool): \(said.prefix(3))")
            }
        }
    }

    @Test func gnuTarAndBsdtarExtractWithoutAWarning() throws {
        try withTemporaryDirectory { dir in
            let archive = dir + "/pax.tar"
            try write(Self.cases(), to: archive)
            for (tool, arguments) in [("tar", ["--numeric-owner", "-xf"]), ("bsdtar", ["--numeric-owner", "-xf"])] {
                let target = dir + "/" + tool
                try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: true)
                let result = try Shell.run(tool, arguments + [archive, "-C", target])
                #expect(result.status == 0, "\(tool): \(result.stderr)")
                // GNU tar names a time before 1970 "implausibly old" and one in 36827 "in the future", and does not know
                // `hdrcharset` (a non-UTF-8 name's, as libarchive's writer marked it too), whose raw name it keeps;
                // nothing else may be said.
                let expected = ["implausibly old time stamp", "s in the future", "unknown extended header keyword 'hdrcharset'"]
                let said = result.stderr.split(separator: "\n").filter { line in !expected.contains { line.contains($0) } }
                #expect(said.isEmpty, "\(tool): \(said)")
                let sparse = try Data(contentsOf: URL(fileURLWithPath: target + "/dir/sparse"))
                #expect(sparse.count == 3 << 20 && sparse[(1 << 20)..<((1 << 20) + 3)] == Data("xyz".utf8), "\(tool)")
                let hole = try Data(contentsOf: URL(fileURLWithPath: target + "/dir/all-hole"))
                #expect(hole == Data(count: 8192), "\(tool)")
                let split = String(repeating: "segment-0/", count: 22) + "end.txt"
                #expect(FileManager.default.fileExists(atPath: target + "/" + split), "\(tool)")
                var status = stat()
                let raw = Array((target + "/dir/").utf8) + [0x66, 0xFF, 0x67, 0]
                #expect(raw.withUnsafeBufferPointer { lstat(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), &status) } == 0,
                        "\(tool): the non-UTF-8 name")
                #expect(lstat(target + "/dir/owners", &status) == 0 && status.st_uid == 3_000_000 && status.st_gid == 4_000_000)
                #expect(lstat(target + "/dir/nanoseconds", &status) == 0 && status.st_mtim.tv_nsec == 123_456_789, "\(tool)")
            }
        }
    }
}
