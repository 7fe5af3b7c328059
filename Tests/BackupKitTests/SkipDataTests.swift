// SkipDataTests: `skipData` passes over member data unread in a plain tar file (the input's offset moved, as `tar -t`
// does), and only there: the padding after it is still read and audited, and a compressed archive or a pipe is read
// through.
import Foundation
import Glibc
import SystemKit
import TarKit
import TestSupport
import Testing

@Suite struct SkipDataTests {
    /// Three members of 300 kB to 1 MB, sizes not a multiple of 512 (so each has padding), and a small one.
    static let sizes = [300_001, 1_000_003, 700_005, 17]

    static func archive() -> (bytes: [UInt8], paddings: [Range<Int>]) {
        var builder = TarBuilder()
        var paddings: [Range<Int>] = []
        for (index, size) in sizes.enumerated() {
            builder.header(name: Array("Library/big\(index)".utf8), type: UInt8(ascii: "0"), size: size)
            let start = builder.bytes.count + size
            builder.data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) })
            paddings.append(start..<builder.bytes.count)
        }
        builder.end()
        return (builder.bytes, paddings)
    }

    /// Each member's name, skipping its data, and the bytes the reader passed over.
    static func skim(_ reader: ArchiveReader) throws -> (names: [String], skipped: UInt64) {
        defer { try? reader.close() }
        var names: [String] = []
        while let member = try reader.next() {
            names.append(member.path)
            try reader.skipData()
        }
        return (names, reader.skippedBytes)
    }

    static let names = sizes.indices.map { "Library/big\($0)" }

    /// In a file: most of the three large members' data is passed over (all but what the reader's 128 KiB blocks
    /// already hold), and the members come as when read.
    @Test func aPlainFilesMemberDataIsPassedOverUnread() throws {
        try withTemporaryDirectory { dir in
            try Data(Self.archive().bytes).write(to: URL(fileURLWithPath: dir + "/a.tar"))
            let (names, skipped) = try Self.skim(try ArchiveReader(path: dir + "/a.tar"))
            #expect(names == Self.names)
            let large = UInt64(Self.sizes.prefix(3).reduce(0, +))
            #expect(skipped > large - 3 * (128 << 10) && skipped <= large, "\(skipped) of \(large)")
        }
    }

    /// gzip-compressed, or through a pipe: nothing is passed over (the offset of the input is not the stream's, or
    /// cannot move); every byte is read, with the same members.
    @Test func compressedOrPipedInputIsReadThrough() throws {
        try withTemporaryDirectory { dir in
            let archive = Self.archive().bytes
            try Data(archive).write(to: URL(fileURLWithPath: dir + "/a.tar"))
            try #require(try Shell.run("gzip", ["-k", dir + "/a.tar"]).status == 0)
            let compressed = try Self.skim(try ArchiveReader(path: dir + "/a.tar.gz"))
            #expect(compressed.names == Self.names && compressed.skipped == 0)

            var ends: [Int32] = [0, 0]
            try #require(pipe(&ends) == 0)
            let (readEnd, writeEnd) = (ends[0], ends[1])
            let writer = Thread {
                archive.withUnsafeBytes { bytes in
                    var offset = 0
                    while offset < bytes.count {
                        let written = write(writeEnd, bytes.baseAddress! + offset, bytes.count - offset)
                        if written <= 0 { break }
                        offset += written
                    }
                }
                close(writeEnd)
            }
            writer.start()
            let piped = try Self.skim(try ArchiveReader(input: FileDescriptor(rawValue: readEnd, path: "pipe"), name: "pipe"))
            #expect(piped.names == Self.names && piped.skipped == 0)
        }
    }

    /// A byte flipped in the padding after a large member's passed-over data (its first, middle and last byte) is
    /// found at its exact offset: the padding is read.
    @Test func paddingAfterPassedOverDataIsStillAudited() throws {
        let (clean, paddings) = Self.archive()
        try withTemporaryDirectory { dir in
            let path = dir + "/a.tar"
            for padding in paddings.prefix(3) {
                for position in [padding.lowerBound, padding.lowerBound + padding.count / 2, padding.upperBound - 1] {
                    var bytes = clean
                    bytes[position] = 0x20
                    try Data(bytes).write(to: URL(fileURLWithPath: path))
                    do {
                        let (_, skipped) = try Self.skim(try ArchiveReader(path: path))
                        Issue.record("byte \(position): read cleanly, \(skipped) bytes passed over")
                    } catch ArchiveReaderError.damaged(let offset, _) {
                        #expect(offset == UInt64(position), "byte \(position)")
                    }
                }
            }
        }
    }
}
