// UserMessage: what a user reads for an error: their file and the cause in their terms, never a syscall's name.
import BackupKit
import Glibc
import SystemKit

/// The text of an error as devicectl prints it. Most errors describe themselves in the user's terms already; a
/// failed system call (`SystemError`, described as `openat2(PATH): No such file or directory` for logs and
/// tests) is said as `PATH: cannot open it: permission denied`, or `PATH: no such file or directory`.
enum UserMessage {
    static func text(for error: any Error) -> String {
        switch error {
        case let error as SystemError: text(for: error)
        case BackupError.system(let error): text(for: error)
        case let failure as ArchiveFailure:
            archiveText(failure)
        default: "\(error)"
        }
    }

    /// The user's file an error is about, for a JSON error line's `path`: the archive or backup a failure is the
    /// fault of, the path a failed system call's message names, ROOT of a restore that could not write; nil
    /// otherwise, and for standard input.
    static func path(for error: any Error) -> String? {
        switch error {
        case let failure as ArchiveFailure: failure.archive == "-" ? nil : failure.archive
        case let error as SystemError: error.path.isEmpty || error.path == "-" ? nil : error.path
        case BackupError.system(let error): error.path.isEmpty || error.path == "-" ? nil : error.path
        case let failure as RestoreFailure: failure.root
        default: nil
        }
    }

    /// `ARCHIVE: cause`, the archive named once even when the cause names it too.
    private static func archiveText(_ failure: ArchiveFailure) -> String {
        let name = failure.archive == "-" ? "standard input" : failure.archive
        let cause = text(for: failure.cause)
        return cause.hasPrefix(name + ": ") ? cause : name + ": " + cause
    }

    /// `PATH: cannot ACTION: reason`, `PATH: no such file or directory`, or `cannot ACTION: reason`.
    static func text(for error: SystemError) -> String {
        let reason = SystemError.phrase(error.code)
        if error.path.isEmpty { return "cannot \(action(error.call)): \(reason)" }
        let path = error.path == "-" ? "standard input" : error.path
        if error.code == ENOENT { return "\(path): \(reason)" }
        let step = step(error.call)
        return "\(path): cannot \(step.ofObject ? step.verb : step.verb + " it"): \(reason)"
    }

    /// What the user would call the failed step, said before its object: `open`, `change the permissions of`.
    static func action(_ call: String) -> String {
        let step = step(call)
        return step.ofObject ? step.verb + " of" : step.verb
    }

    /// The failed step's words: `verb` takes its object directly (`open` a file), or after "of" when `ofObject`
    /// (`change the permissions` of a file); said of the path itself, such a step needs no object at all.
    static func step(_ call: String) -> (verb: String, ofObject: Bool) {
        switch call {
        case "open", "openat", "openat2", "opendir": ("open", false)
        case "read", "pread", "readlink", "readlinkat", "readdir", "getdents64": ("read", false)
        case "write", "pwrite", "ftruncate", "fallocate": ("write", false)
        case "mkdir", "mkdirat", "create", "mkfifo", "mknod", "symlink", "symlinkat", "link", "linkat": ("create", false)
        case "stat", "statx", "lstat", "fstat", "fstatat": ("examine", false)
        case "rename", "renameat", "renameat2": ("rename", false)
        case "unlink", "unlinkat", "rmdir": ("remove", false)
        case "realpath": ("resolve", false)
        case "fsync", "fdatasync", "syncfs": ("flush", false)
        case "flock", "fcntl", "lock": ("lock", false)
        case "chmod", "fchmod", "fchmodat": ("change the permissions", true)
        case "chown", "fchown", "fchownat", "lchown": ("change the owner", true)
        case "utimensat", "futimens": ("set the times", true)
        case let other where other.contains("xattr"): ("use the extended attributes", true)
        default: ("use", false)
        }
    }
}
