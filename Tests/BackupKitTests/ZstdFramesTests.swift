// ZstdFramesTests: a zstd archive is a sequence of independent frames of 2 MiB of the tar stream each, which the zstd
// tool, GNU tar and bsdtar read as one stream, whichever thread compressed each frame.
import Foundation
import Glibc
import SystemKit
import TarKit
import Testing
import TestSupport

@Suite struct ZstdFramesTests {
    /// Members of `size` bytes of word-like text (zstd compresses it about 3:1, slowly at high levels).
    static func members(count: Int, size: Int) -> [(name: String, data: [UInt8])] {
        let words = ["device", "token", "widget", "restore", "nudge", "marker", "group", "flag", "backup", "launch"]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        return (0..<count).map { index in
            var data: [UInt8] = []
            data.reserveCapacity(size)
            while data.count < size {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let word = words[Int(state >> 60) % words.count]
                data.append(contentsOf: word.utf8)
                data.append(contentsOf: String(state >> 40 & 0xFFF, radix: 16).utf8)
                data.append(state >> 33 & 7 == 0 ? 0x0A : 0x20)
            }
            return ("data/\(index).txt", Array(data.prefix(size)))
        }
    }

    /// Writes `members` with TarKit's writer; returns the writer (closed) for its counters.
    @discardableResult
    static func write(
        _ members: [(name: String, data: [UInt8])], to path: String, compression: Compression, level: Int? = nil,
        copies: HandOffCopyPolicy = .measured
    ) throws -> ArchiveWriter {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        defer { Glibc.close(fd) }
        let writer = try ArchiveWriter(
            descriptor: fd, compression: compression, level: level, name: path, copies: copies)
        let entry = ArchiveEntry()
        for member in members {
            entry.clear()
            member.name.withCString { entry.setPath($0) }
            entry.setMetadata(
                mode: 0o100644, uid: 501, gid: 20, mtime: 1_700_000_000, nanoseconds: 0, size: Int64(member.data.count))
            try writer.writeHeader(entry)
            try member.data.withUnsafeBytes { try writer.writeData($0) }
        }
        try writer.close()
        return writer
    }

    /// The frame count `zstd -lv` reports for `path`.
    static func frames(_ path: String) throws -> Int {
        let listing = try Shell.run("zstd", ["-lv", path])
        try #require(listing.status == 0, "\(listing.stderr)")
        let line = try #require(listing.stdout.split(separator: "\n").first { $0.contains("# Zstandard Frames:") })
        return try #require(Int(line.split(separator: ":").last!.trimmingCharacters(in: .whitespaces)))
    }

    /// `zstd -dc` of the compressed archive is the plain archive's stream (the plain one is padded to a whole
    /// 10240-byte record; the compressed one is not), and GNU tar and bsdtar list the same members.
    static func expectSameStream(_ compressed: String, plain: String, members: [(name: String, data: [UInt8])]) throws {
        let decompressed = try Shell.run("zstd", ["-dc", compressed])
        try #require(decompressed.status == 0, "\(decompressed.stderr)")
        let stream = [UInt8](decompressed.stdoutData), padded = [UInt8](try Data(contentsOf: URL(fileURLWithPath: plain)))
        #expect(stream.count % 512 == 0 && stream.count <= padded.count)
        #expect(Array(padded.prefix(stream.count)) == stream)
        #expect(padded.dropFirst(stream.count).allSatisfy { $0 == 0 })
        for tool in [["tar", "--zstd", "-tf"], ["bsdtar", "-tf"]] {
            let listed = try Shell.run(tool[0], Array(tool.dropFirst()) + [compressed])
            #expect(listed.status == 0, "\(tool): \(listed.stderr)")
            #expect(listed.stdout.split(separator: "\n").map(String.init) == members.map(\.name), "\(tool)")
        }
    }

    @Test func aZstdArchiveIsFramesOfTwoMiBOfTheStream() throws {
        try withTemporaryDirectory { dir in
            let members = Self.members(count: 3, size: 2_500_000)
            try Self.write(members, to: "\(dir)/plain.tar", compression: .none)
            try Self.write(members, to: "\(dir)/frames.tar.zst", compression: .zstd)
            try Self.expectSameStream("\(dir)/frames.tar.zst", plain: "\(dir)/plain.tar", members: members)
            // 3 headers, 7.5 MB of data and its padding, the end mark: 3.58 frames of 2 MiB.
            #expect(try Self.frames("\(dir)/frames.tar.zst") == 4)
            // The same entries give the same bytes.
            try Self.write(members, to: "\(dir)/again.tar.zst", compression: .zstd)
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: "\(dir)/again.tar.zst"))
                    == Data(contentsOf: URL(fileURLWithPath: "\(dir)/frames.tar.zst")))
        }
    }

    @Test func anArchiveOfNoMembersIsOneFrame() throws {
        try withTemporaryDirectory { dir in
            try Self.write([], to: "\(dir)/plain.tar", compression: .none)
            try Self.write([], to: "\(dir)/empty.tar.zst", compression: .zstd)
            try Self.expectSameStream("\(dir)/empty.tar.zst", plain: "\(dir)/plain.tar", members: [])
            #expect(try Self.frames("\(dir)/empty.tar.zst") == 1)
        }
    }

    @Test func theWritingThreadCompressesFramesWhileTheCompressorIsBehind() throws {
        try withTemporaryDirectory { dir in
            // At level 19 a 2 MiB frame takes the compressing thread a large fraction of a second, while the writing
            // thread fills a block in a few milliseconds: with three blocks queued, it compresses the fourth itself.
            let members = Self.members(count: 4, size: 2_500_000)
            try Self.write(members, to: "\(dir)/plain.tar", compression: .none)
            let writer = try Self.write(members, to: "\(dir)/ahead.tar.zst", compression: .zstd, level: 19)
            #expect(writer.framesCompressedAhead > 0)
            try Self.expectSameStream("\(dir)/ahead.tar.zst", plain: "\(dir)/plain.tar", members: members)
            #expect(try Self.frames("\(dir)/ahead.tar.zst") == 5)
        }
    }

    @Test func atTheEndTheWritingThreadCompressesQueuedFramesFromTheNewestBack() throws {
        try withTemporaryDirectory { dir in
            // Three blocks fit the pool, so nothing is compressed ahead while the stream is written; at the end the
            // compressing thread is still on the first (level 19: a large fraction of a second), and the writing
            // thread, with nothing left to fill, compresses the last block (at least) itself.
            let members = Self.members(count: 2, size: 2_500_000)
            try Self.write(members, to: "\(dir)/plain.tar", compression: .none)
            let writer = try Self.write(members, to: "\(dir)/end.tar.zst", compression: .zstd, level: 19)
            #expect(writer.framesCompressedAhead >= 1)
            try Self.expectSameStream("\(dir)/end.tar.zst", plain: "\(dir)/plain.tar", members: members)
            #expect(try Self.frames("\(dir)/end.tar.zst") == 3)
            // The same entries give the same bytes, whichever thread made which frame in either run.
            try Self.write(members, to: "\(dir)/again.tar.zst", compression: .zstd, level: 19)
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: "\(dir)/again.tar.zst"))
                    == Data(contentsOf: URL(fileURLWithPath: "\(dir)/end.tar.zst")))
        }
    }

    @Test func streamingAndPlainStoresFillTheBlocksWithTheSameBytes() throws {
        try withTemporaryDirectory { dir in
            // Odd sizes: the padding after each member and the next header start mid-line, so every streaming copy
            // has a partial line at one end or both.
            var members = Self.members(count: 4, size: 2_500_001)
            members[1].data.removeLast(1_500_000)
            members[2].data = Array(members[2].data.prefix(77))
            try Self.write(members, to: "\(dir)/plain.tar", compression: .none)
            let regular = try Self.write(members, to: "\(dir)/regular.tar.zst", compression: .zstd, copies: .init(.regular))
            let streaming = try Self.write(
                members, to: "\(dir)/streaming.tar.zst", compression: .zstd, copies: .init(.streaming))
            try Self.write(members, to: "\(dir)/measured.tar.zst", compression: .zstd)
            let frames = try Self.frames("\(dir)/streaming.tar.zst")
            #expect(regular.blocksStreamed == 0)
            #expect(streaming.blocksStreamed == frames)
            try Self.expectSameStream("\(dir)/streaming.tar.zst", plain: "\(dir)/plain.tar", members: members)
            let bytes = try ["regular", "streaming", "measured"].map {
                try Data(contentsOf: URL(fileURLWithPath: "\(dir)/\($0).tar.zst"))
            }
            #expect(bytes[0] == bytes[1])
            #expect(bytes[0] == bytes[2])
        }
    }

    @Test func onlyZstdBlocksAreEverStreamed() throws {
        try withTemporaryDirectory { dir in
            let members = Self.members(count: 2, size: 300_000)
            for compression in [Compression.none, .gzip, .xz] {
                let writer = try Self.write(
                    members, to: "\(dir)/archive", compression: compression, copies: .init(.streaming))
                #expect(writer.blocksStreamed == 0, "\(compression)")
            }
        }
    }
}
