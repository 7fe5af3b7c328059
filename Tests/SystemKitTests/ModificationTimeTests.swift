import Glibc
import SystemKit
import TestSupport
import Testing

@Suite struct ModificationTimeTests {
    private func times(_ path: String) throws -> (access: timespec, modification: timespec) {
        var status = stat()
        try #require(lstat(path, &status) == 0)
        return (status.st_atim, status.st_mtim)
    }

    @Test func setsTheMtimeOfAnOpenFileAndKeepsItsAccessTime() throws {
        try withTemporaryDirectory { directory in
            let path = "\(directory)/file"
            let fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o644)
            try #require(fd >= 0)
            defer { close(fd) }
            let before = try times(path)
            try ModificationTime.set(timespec(tv_sec: 1_000_000_000, tv_nsec: 123), descriptor: fd, path: path)
            let after = try times(path)
            #expect(after.modification.tv_sec == 1_000_000_000 && after.modification.tv_nsec == 123)
            #expect(after.access.tv_sec == before.access.tv_sec && after.access.tv_nsec == before.access.tv_nsec)
        }
    }

    @Test func setsASymlinksOwnMtimeNotItsTargets() throws {
        try withTemporaryDirectory { directory in
            let target = "\(directory)/target"
            try #require(close(open(target, O_CREAT | O_WRONLY | O_CLOEXEC, 0o644)) == 0)
            try #require(symlink("target", "\(directory)/link") == 0)
            let targetBefore = try times(target).modification
            let parent = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            try #require(parent >= 0)
            defer { close(parent) }
            try ModificationTime.set(timespec(tv_sec: 86_400, tv_nsec: 0), name: "link", in: parent, path: "link")
            #expect(try times("\(directory)/link").modification.tv_sec == 86_400)
            #expect(try times(target).modification.tv_sec == targetBefore.tv_sec)
        }
    }

    @Test func aMissingNameFailsNamingTheCallPathAndCause() throws {
        let error = #expect(throws: SystemError.self) {
            try ModificationTime.set(timespec(tv_sec: 1, tv_nsec: 0), name: "/nonexistent-devicectl/x", in: AT_FDCWD,
                path: "/nonexistent-devicectl/x")
        }
        #expect(error?.description == "utimensat(/nonexistent-devicectl/x): No such file or directory")
    }
}
