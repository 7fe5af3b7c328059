// ArchiveTargetTests: how `-o PATH` is resolved (relative symlinks from their own directory, bare names,
// names that are not file names), and that the final rename never replaces what appeared at the path meanwhile.
@testable import BackupKit
import Foundation
import Glibc
import SystemKit
import TestSupport
import Testing

@Suite struct ArchiveTargetTests {
    @Test func relativeLinksResolveFromTheirOwnDirectory() throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir + "/a/b", withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: dir + "/c", withIntermediateDirectories: true)
            // dir/a/b/link -> ../../c/mid -> /abs... -> final (relative again, from c).
            #expect(symlink("../../c/mid", dir + "/a/b/link") == 0)
            #expect(symlink(dir + "/c/last", dir + "/c/mid") == 0)
            #expect(symlink("final.tar", dir + "/c/last") == 0)
            #expect(try ArchiveTarget.resolve(dir + "/a/b/link") == .replace(path: dir + "/c/final.tar"))
            #expect(try ArchiveTarget.resolve(dir + "/c/final.tar") == .replace(path: dir + "/c/final.tar"))
            #expect(try ArchiveTarget.resolve("/dev/null") == .stream(path: "/dev/null"))
        }
    }

    @Test func aBareNameIsInTheWorkingDirectory() throws {
        #expect(ArchiveTarget.directory(of: "b.tar") == ".")
        #expect(ArchiveTarget.directory(of: "/b.tar") == "/")
        #expect(ArchiveTarget.directory(of: "x/y/b.tar") == "x/y")
    }

    @Test(arguments: ["", "/", ".", ".."])
    func aPathThatIsNotAFileNameIsRefused(_ path: String) throws {
        #expect(throws: BackupError.self) { try ArchiveTarget.resolve(path) }
    }

    @Test(arguments: ["directory", "fifo", "symlink"])
    func whatAppearsAtTheDestinationDuringTheBackupIsNeverReplaced(_ kind: String) throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir + "/src", withIntermediateDirectories: true)
            try Data("data".utf8).write(to: URL(fileURLWithPath: dir + "/src/a.txt"))
            let archive = dir + "/b.tar"
            let request = BackupRequest(root: dir + "/src", output: .file(archive), tool: "devicectl test")
            let error = #expect(throws: BackupError.self) {
                try BackupEngine.backup(request, progress: nil, warning: { _ in }, afterRead: { _ in
                    switch kind {
                    case "directory": mkdir(archive, 0o755)
                    case "fifo": mkfifo(archive, 0o600)
                    default: symlink("elsewhere.tar", archive)
                    }
                })
            }
            let message = error.map { "\($0)" } ?? "none: the backup was written"
            #expect(message.contains("cannot write the archive to \(archive): it became a"), "\(message)")
            #expect(try FileStatus.of(archive).kind != .regular)
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["b.tar", "src"])
        }
    }
}
