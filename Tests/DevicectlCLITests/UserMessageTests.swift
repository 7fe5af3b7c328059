// UserMessageTests: a failed system call reaches the user as their file and the cause, never the call's name.
@testable import DevicectlCLI
import Glibc
import SystemKit
import Testing

@Suite struct UserMessageTests {
    /// Every call name SystemKit, DeviceKit and BackupKit report, with an errno that is not ENOENT.
    static let calls = [
        "open", "openat", "openat2", "read", "pread", "write", "readlink", "mkdir", "mkdirat", "stat", "statx",
        "fstat", "rename", "renameat2", "unlink", "unlinkat", "rmdir", "realpath", "fsync", "flock", "fchmod",
        "fchownat", "utimensat", "fsetxattr", "lgetxattr", "llistxattr", "fremovexattr", "archive_read_open",
        "check",
    ]

    @Test(arguments: calls)
    func aFailedCallNamesTheFileAndTheCauseNotTheCall(_ call: String) {
        let text = UserMessage.text(for: SystemError(call, path: "/home/u/phone/Documents/a.txt", code: EACCES))
        #expect(text.hasPrefix("/home/u/phone/Documents/a.txt: cannot "), "\(text)")
        #expect(text.hasSuffix(": permission denied"), "\(text)")
        #expect(!text.contains(call + "(") && !text.contains(call + ":"), "\(text)")
    }

    /// A step said with "of" before its object ("change the permissions of") is said of the path itself without
    /// an object; the others take "it"; a restore names the member after either.
    @Test func aStepIsWordedForThePathAndForAMember() {
        let path = "/home/u/phone/a"
        #expect(UserMessage.text(for: SystemError("fchmod", path: path, code: EPERM))
            == "\(path): cannot change the permissions: operation not permitted")
        #expect(UserMessage.text(for: SystemError("fsetxattr", path: path, code: ENOTSUP))
            == "\(path): cannot use the extended attributes: operation not supported")
        #expect(UserMessage.text(for: SystemError("utimensat", path: path, code: EPERM))
            == "\(path): cannot set the times: operation not permitted")
        #expect(UserMessage.text(for: SystemError("mkdirat", path: path, code: EEXIST))
            == "\(path): cannot create it: file exists")
        #expect(SystemError.action("fchownat") == "change the owner of")
        #expect(SystemError.action("renameat2") == "rename")
    }

    @Test func aMissingFileIsSaidPlainlyAndStandardInputByName() {
        #expect(UserMessage.text(for: SystemError("openat2", path: "/x/phone", code: ENOENT))
            == "/x/phone: no such file or directory")
        #expect(UserMessage.text(for: SystemError("read", path: "-", code: EISDIR))
            == "standard input: cannot read it: is a directory")
        #expect(UserMessage.text(for: SystemError("fsync", code: EIO)) == "cannot flush: input/output error")
    }

    /// An archive failure keeps its archive's name and says its cause in the same terms.
    @Test func anArchiveFailureNamesTheArchive() {
        let failure = ArchiveFailure(archive: "/b/a.tar", cause: SystemError("read", path: "/b/a.tar", code: EIO))
        #expect(UserMessage.text(for: failure) == "/b/a.tar: cannot read it: input/output error")
    }
}
