// ExcludeFromEndToEndTests: `backup --exclude-from FILE` reads patterns one a line (comments, blank lines and CRLF
// endings ignored), from a file or standard input, with --exclude and other files beside it; GNU tar lists what
// was stored. Bad pattern files fail with their name and line, and change nothing.
import Foundation
import TestSupport
import Testing

@Suite struct ExcludeFromEndToEndTests {
    /// A tree with logs, a build directory, a cache and plain files.
    static func tree(_ scratch: String) throws -> String {
        let root = scratch + "/tree"
        for directory in ["a/build", "b", "c"] {
            try FileManager.default.createDirectory(atPath: root + "/" + directory, withIntermediateDirectories: true)
        }
        for file in ["a/x.log", "a/build/out.o", "a/keep.txt", "b/y.log", "b/keep.txt", "c/z.tmp", "c/keep.txt"] {
            try Data(file.utf8).write(to: URL(fileURLWithPath: root + "/" + file))
        }
        return root
    }

    static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test func patternsFromFilesAndStandardInputCombineWithExclude() throws {
        try withTemporaryDirectory { scratch throws in
            let root = try Self.tree(scratch)
            try Self.write("# build output\n*.log\n\n   \nbuild\r\n", to: scratch + "/first")
            let archive = scratch + "/out.tar"
            let result = try BackupCheck.devicectl(
                ["backup", root, "-o", archive, "--exclude-from", scratch + "/first", "--exclude-from", "-",
                 "--exclude", "c/keep.txt"],
                input: Data("c/*.tmp\n".utf8))
            #expect(result.status == 0, "\(result.stderr)")
            let stored = try TarTool.members(archive).filter { !$0.hasPrefix(".devicectl") }
            #expect(stored.sorted() == ["a/", "a/keep.txt", "b/", "b/keep.txt", "c/"], "\(stored)")
        }
    }

    @Test func theDryRunNamesThePatternFromTheFile() throws {
        try withTemporaryDirectory { scratch throws in
            let root = try Self.tree(scratch)
            try Self.write("*.log\n", to: scratch + "/patterns")
            let result = try BackupCheck.devicectl(
                ["backup", root, "-o", scratch + "/out.tar", "--exclude-from", scratch + "/patterns", "--dry-run"])
            #expect(result.status == 0)
            #expect(result.stdout.contains("a/x.log  (pattern '*.log')"), "\(result.stdout)")
            #expect(access(scratch + "/out.tar", F_OK) != 0)
        }
    }

    /// Each bad file: the exit status and the words the message must hold; no archive is written.
    @Test(arguments: [
        ("invalid", Data("*.log\n# fine\na[\n".utf8), Int32(64), ["invalid pattern 'a['", "line 3"]),
        ("latin1", Data([0x2A, 0x0A, 0x66, 0xE9, 0x0A]), 64, ["line 2 is not UTF-8"]),
        ("huge", Data(repeating: UInt8(ascii: "a"), count: (1 << 20) + 1), 1, ["larger than 1 MiB"]),
        // A pattern is shown escaped (a terminal control sequence stays text) and cut after 80 characters.
        ("control", Data("\u{1B}]0;x\u{07}[\n".utf8), 64, ["invalid pattern '\\u{1B}]0;x\\u{7}['", "line 1"]),
        ("long", Data((String(repeating: "*a", count: 3000) + "\n").utf8), 64, ["...(6000 bytes)' in", "longer than 4096"]),
    ] as [(String, Data, Int32, [String])])
    func aBadPatternFileNamesItselfAndWritesNothing(_ name: String, _ content: Data, _ status: Int32, _ words: [String])
        throws
    {
        try withTemporaryDirectory { scratch throws in
            let root = try Self.tree(scratch)
            let file = scratch + "/" + name
            try content.write(to: URL(fileURLWithPath: file))
            let result = try BackupCheck.devicectl(["backup", root, "-o", scratch + "/out.tar", "--exclude-from", file])
            #expect(result.status == status, "\(result.stderr)")
            #expect(result.stderr.contains(name), "\(result.stderr)")
            for word in words { #expect(result.stderr.contains(word), "\(result.stderr)") }
            #expect(access(scratch + "/out.tar", F_OK) != 0)
        }
    }

    @Test func aMissingFileOrADirectoryIsAFailureNamingIt() throws {
        try withTemporaryDirectory { scratch throws in
            let root = try Self.tree(scratch)
            let missing = try BackupCheck.devicectl(
                ["backup", root, "-o", scratch + "/out.tar", "--exclude-from", scratch + "/nope"])
            #expect(missing.status == 1)
            #expect(missing.stderr == "devicectl: cannot read --exclude-from \(scratch)/nope: no such file or directory\n")
            let directory = try BackupCheck.devicectl(["backup", root, "-o", scratch + "/out.tar", "--exclude-from", root])
            #expect(directory.status == 1)
            #expect(directory.stderr.contains("cannot read --exclude-from \(root): it is a directory"))
            #expect(access(scratch + "/out.tar", F_OK) != 0)
        }
    }
}
