// DecoderWindowTests: a zstd, xz, lzip or lzma stream asking for a decoding window over 32 MiB is refused by restore,
// verify and list before the decoder allocates it, in any frame, block, member or concatenated stream; what
// devicectl's own highest levels write still reads.
import Foundation
import TestSupport
import Testing

@Suite struct DecoderWindowTests {
    /// A tar of a small tree, compressed by `command` reading stdin (unknown size: the level's full window).
    static func archive(_ dir: String, _ name: String, _ command: String) throws -> String {
        try FileManager.default.createDirectory(atPath: "\(dir)/tree/Documents", withIntermediateDirectories: true)
        try Data(repeating: 7, count: 4096).write(to: URL(fileURLWithPath: "\(dir)/tree/Documents/f"))
        let path = "\(dir)/\(name)"
        let made = try Shell.run("/bin/sh", ["-c", "tar -C \"$1/tree\" -cf - . | \(command) > \"$2\"", "sh", dir, path])
        try #require(made.status == 0, "\(made.stderr)")
        return path
    }

    @Test(arguments: [
        ("ultra.tar.zst", "zstd -q --ultra -22 -c", "zstd"), ("long.tar.zst", "zstd -q --long=30 -c", "zstd"),
        ("nine.tar.xz", "xz -9 -c", "xz"), ("extreme.tar.xz", "xz -9e -c", "xz"),
        ("nine.tar.lzma", "xz --format=lzma -9 -c", "lzma"), ("big.tar.lz", "lzip -c | \(Self.lzip64MiB)", "lzip"),
    ])
    func aWindowOverTheCapIsRefusedByEveryReader(_ name: String, _ command: String, _ filter: String) throws {
        try withTemporaryDirectory { dir in
            let archive = try Self.archive(dir, name, command)
            for arguments in [["verify", archive], ["list", archive], ["restore", archive, "\(dir)/new"]] {
                let result = try DevicectlBinary.run(arguments)
                #expect(result.status == 1, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("decoding window"), "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains(filter), "\(arguments): \(result.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: "\(dir)/new"))
        }
    }

    /// Sets the dictionary size in an lzip member's header (standard input to standard output) to 64 MiB. lzip itself
    /// shrinks the dictionary to the data it compresses; the member's checks (CRC-32, sizes) do not cover the header.
    static let lzip64MiB =
        "python3 -c 'import sys; d = bytearray(sys.stdin.buffer.read()); d[5] = 0x1A; sys.stdout.buffer.write(d)'"

    /// The tar's first 10240 bytes compressed by `first`, the rest by `second`, the two xz streams concatenated
    /// (`xz -d` reads them as one).
    static func concatenated(_ dir: String, _ name: String, _ first: String, _ second: String) throws -> String {
        // 100 kB more, so that the second stream has a block (an empty stream has none, nor a dictionary).
        try FileManager.default.createDirectory(atPath: "\(dir)/tree/Documents", withIntermediateDirectories: true)
        try Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(
            to: URL(fileURLWithPath: "\(dir)/tree/Documents/g"))
        let tar = try archive(dir, name + ".tar", "cat")
        let path = "\(dir)/\(name)"
        let made = try Shell.run(
            "/bin/sh",
            ["-c", "head -c 10240 \"$1\" | \(first) > \"$2\" && tail -c +10241 \"$1\" | \(second) >> \"$2\"", "sh", tar, path])
        try #require(made.status == 0, "\(made.stderr)")
        return path
    }

    /// A small first xz stream or lzip member and a second asking for a 64 MiB dictionary: a check of the first
    /// header alone (and libarchive, which sets liblzma no limit) would let the second through.
    @Test(arguments: [
        ("two.tar.xz", "xz -1 -c", "xz -9 -c", "xz"), ("two.tar.lz", "lzip -c", "lzip -c | \(lzip64MiB)", "lzip"),
    ])
    func aLaterStreamOverTheCapIsRefusedByEveryReader(_ name: String, _ first: String, _ second: String, _ filter: String)
        throws
    {
        try withTemporaryDirectory { dir in
            let archive = try Self.concatenated(dir, name, first, second)
            for arguments in [["verify", archive], ["list", archive], ["restore", archive, "\(dir)/new"]] {
                let result = try DevicectlBinary.run(arguments)
                #expect(result.status == 1, "\(arguments): \(result.stderr)")
                #expect(
                    result.stderr.contains("decoding window") && result.stderr.contains(filter),
                    "\(arguments): \(result.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: "\(dir)/new"))
        }
    }

    /// Concatenated xz streams and lzip members, an xz stream of many blocks (what `xz -T` writes) and lzip and lzma
    /// at their highest levels read as one, as `xz -d` and `lzip -d` read them.
    @Test func concatenatedMultiBlockAndLegacyStreamsStillRead() throws {
        try withTemporaryDirectory { dir in
            let two = try Self.concatenated(dir, "two.tar.xz", "xz -1 -c", "xz -6 -c")
            let members = try Self.concatenated(dir, "two.tar.lz", "lzip -1 -c", "lzip -9 -c")
            let blocks = try Self.archive(dir, "blocks.tar.xz", "xz -T2 --block-size=16384 -6 -c")
            let lzip = try Self.archive(dir, "nine.tar.lz", "lzip -9 -c")
            let lzma = try Self.archive(dir, "eight.tar.lzma", "xz --format=lzma -8 -c")
            for archive in [two, members, blocks, lzip, lzma] {
                let listed = try DevicectlBinary.run(["list", archive])
                #expect(listed.status == 0, "\(archive): \(listed.stderr)")
                #expect(listed.stdout.contains("Documents/f"), "\(listed.stdout)")
            }
        }
    }

    @Test(arguments: [("nineteen.tar.zst", "zstd -q -19 -c"), ("eight.tar.xz", "xz -8 -c"), ("gnu.tar.zst", "zstd -q -c")])
    func theHighestLevelsBackupWritesStillRead(_ name: String, _ command: String) throws {
        try withTemporaryDirectory { dir in
            let archive = try Self.archive(dir, name, command)
            let listed = try DevicectlBinary.run(["list", archive])
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect(listed.stdout.contains("Documents/f"), "\(listed.stdout)")
        }
    }

    @Test func backupRefusesALevelItsReaderWouldRefuse() throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(atPath: "\(dir)/tree", withIntermediateDirectories: true)
            for (compression, level) in [("zstd", "20"), ("xz", "9")] {
                let result = try DevicectlBinary.run(
                    ["backup", "\(dir)/tree", "-o", "\(dir)/a.tar", "--compression", compression, "--level", level])
                #expect(result.status != 0, "\(compression) \(level): \(result.stderr)")
                #expect(!FileManager.default.fileExists(atPath: "\(dir)/a.tar"))
            }
        }
    }
}
