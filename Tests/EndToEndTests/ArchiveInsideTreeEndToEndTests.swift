// ArchiveInsideTreeEndToEndTests: an archive written inside the tree it backs up is never stored in itself:
// neither the file being written nor the one it replaces ("file is the archive; not dumped", as GNU tar says).
import Foundation
import TestSupport
import Testing

@Suite struct ArchiveInsideTreeEndToEndTests {
    @Test func theArchiveAndTheOneItReplacesAreNotDumped() throws {
        try withTemporaryDirectory { dir throws in
            let tree = dir + "/tree"
            try FileManager.default.createDirectory(atPath: tree + "/sub", withIntermediateDirectories: true)
            try Data("a".utf8).write(to: URL(fileURLWithPath: tree + "/sub/a.txt"))
            let archive = tree + "/sub/self.tar"
            let first = try BackupCheck.devicectl(["backup", tree, "-o", archive, "--no-progress"])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(!first.stderr.contains("not dumped"), "nothing to replace yet: \(first.stderr)")
            #expect(try TarTool.members(archive).filter { !$0.hasPrefix(".devicectl") } == ["sub/", "sub/a.txt"])

            let dry = try BackupCheck.devicectl(["backup", tree, "-o", archive, "--dry-run"])
            #expect(dry.status == 0)
            #expect(dry.stderr.contains("\(tree)/sub/self.tar: file is the archive; would not be dumped"), "\(dry.stderr)")

            let second = try BackupCheck.devicectl(["backup", tree, "-o", archive, "--no-progress"])
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.stderr.contains("warning: \(tree)/sub/self.tar: file is the archive; not dumped"))
            #expect(try TarTool.members(archive).filter { !$0.hasPrefix(".devicectl") } == ["sub/", "sub/a.txt"])
            #expect(try directoryNames(in: tree + "/sub") == ["a.txt", "self.tar"], "no temporary file left")
        }
    }

    /// `-o` through a symlink that leads into the tree: the file it resolves to is the archive.
    @Test func anArchiveReachedThroughASymlinkIsRecognised() throws {
        try withTemporaryDirectory { dir throws in
            let tree = dir + "/tree"
            try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
            try Data("a".utf8).write(to: URL(fileURLWithPath: tree + "/a.txt"))
            try Data().write(to: URL(fileURLWithPath: tree + "/out.tar"))
            #expect(symlink(tree + "/out.tar", dir + "/link.tar") == 0)
            let result = try BackupCheck.devicectl(["backup", tree, "-o", dir + "/link.tar", "--no-progress"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("out.tar: file is the archive; not dumped"), "\(result.stderr)")
            #expect(try TarTool.members(tree + "/out.tar").filter { !$0.hasPrefix(".devicectl") } == ["a.txt"])
        }
    }
}
