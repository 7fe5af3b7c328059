// ContainedRootTests: the kernel keeps every call beneath the root, whatever the tree's links say.
import Foundation
import Glibc
import SystemKit
import TestSupport
import Testing

@Suite struct ContainedRootTests {
    /// A root with a sentinel beside it and links out of the root planted inside it.
    static func withRoot(_ body: (ContainedRoot, _ root: String, _ sentinel: String) throws -> Void) throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/root", sentinel = "\(dir)/sentinel"
            for path in [root + "/d", sentinel] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
            try FileManager.default.createSymbolicLink(atPath: "\(root)/out", withDestinationPath: sentinel)
            try FileManager.default.createSymbolicLink(atPath: "\(root)/d/up", withDestinationPath: "../../sentinel")
            try FileManager.default.createSymbolicLink(atPath: "\(root)/inner", withDestinationPath: "d")
            try body(try ContainedRoot(opening: root), root, sentinel)
        }
    }

    @Test(arguments: ["out/x", "d/up/x", "../sentinel/x", "/etc/passwd-x", "inner/x", "d/../../sentinel/x", "out/"])
    func nothingIsCreatedOrReadThroughALinkOrAbove(_ relative: String) throws {
        try Self.withRoot { root, _, sentinel throws in
            #expect(throws: SystemError.self) { try root.writeAtomically([1], to: relative) }
            #expect(throws: SystemError.self) { try root.makeDirectories(relative + "/y") }
            #expect(throws: SystemError.self) { _ = try root.open(relative, flags: O_WRONLY | O_CREAT, mode: 0o644) }
            #expect(throws: SystemError.self) { try root.setAttribute("user.t", to: [1], at: relative) }
            #expect(try FileManager.default.contentsOfDirectory(atPath: sentinel).isEmpty)
        }
    }

    @Test func aLinkIsSeenAsALinkAndRemovedNotFollowed() throws {
        try Self.withRoot { root, path, sentinel throws in
            try Data([7]).write(to: URL(fileURLWithPath: "\(sentinel)/keep"))
            #expect(try root.status("out")?.kind == .symlink)
            #expect(throws: SystemError.self) { _ = try root.status("out/keep") }
            #expect(throws: SystemError.self) { _ = try root.read("out/keep", limit: 10) }
            try root.removeTree("out")
            #expect(!FileManager.default.fileExists(atPath: "\(path)/out"))
            #expect(FileManager.default.fileExists(atPath: "\(sentinel)/keep"))
            // Replacing a link by a file replaces the link itself.
            try FileManager.default.createSymbolicLink(atPath: "\(path)/victim", withDestinationPath: "\(sentinel)/keep")
            try root.writeAtomically([1, 2], to: "victim")
            #expect(try root.read("victim", limit: 10) == [1, 2])
            #expect(try Data(contentsOf: URL(fileURLWithPath: "\(sentinel)/keep")) == Data([7]))
        }
    }

    @Test func aFileOverTheLimitIsRefusedBeforeReadingAndAFIFOWithoutBlocking() throws {
        try Self.withRoot { root, path, _ throws in
            let fd = open("\(path)/big", O_WRONLY | O_CREAT, 0o644)
            #expect(ftruncate(fd, 1 << 40) == 0)
            close(fd)
            #expect(throws: SystemError("read", path: "\(path)/big", code: EFBIG)) { _ = try root.read("big", limit: 1 << 20) }
            #expect(mkfifo("\(path)/fifo", 0o644) == 0)
            #expect(throws: SystemError("read", path: "\(path)/fifo", code: EINVAL)) { _ = try root.read("fifo", limit: 10) }
            #expect(try root.read("absent", limit: 10) == nil)
        }
    }

    @Test func directoriesAreMadeOneNameAtATimeAndListed() throws {
        try Self.withRoot { root, path, _ throws in
            try root.makeDirectories("a/b/c")
            try root.writeAtomically(Array("x".utf8), to: "a/b/c/f")
            #expect(try root.names("a/b/c") == [Array("f".utf8)])
            #expect(try root.names("missing") == nil)
            #expect(try root.names("")?.count == 4)
            try root.removeTree("a")
            #expect(!FileManager.default.fileExists(atPath: "\(path)/a"))
        }
    }
}
