// DecoderWindowTests: a zstd or xz stream asking for a decoding window over 32 MiB is refused by restore, verify
// and list before the decoder allocates it; what devicectl's own highest levels write still reads.
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
