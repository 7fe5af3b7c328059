// UserMessage: what a user reads for an error: their file and the cause in their terms, never a syscall's name.
import Foundation
import Glibc
import SystemKit

/// The text of an error as devicectl prints it. Most errors describe themselves in the user's terms already; a
/// failed system call (`SystemError`, described as `openat2(PATH): No such file or directory` for logs and
/// tests) is said as `PATH: cannot open it: permission denied`, or `PATH: no such file or directory`.
enum UserMessage {
    static func text(for error: any Error) -> String {
        switch error {
        case let error as SystemError: text(for: error)
        case let failure as ArchiveFailure:
            archiveText(failure)
        default: "\(error)"
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
        let reason = cause(error.code)
        if error.path.isEmpty { return "cannot \(action(error.call)): \(reason)" }
        let path = error.path == "-" ? "standard input" : error.path
        if error.code == ENOENT { return "\(path): \(reason)" }
        return "\(path): cannot \(action(error.call)) it: \(reason)"
            .replacingOccurrences(of: " of it:", with: ":")
    }

    /// `strerror` as a phrase: `No such file or directory` -> `no such file or directory`.
    static func cause(_ code: Int32) -> String {
        let text = String(cString: strerror(code))
        guard let first = text.first else { return "error \(code)" }
        return first.lowercased() + text.dropFirst()
    }

    /// What the user would call the failed step.
    static func action(_ call: String) -> String {
        switch call {
        case "open", "openat", "openat2", "opendir": "open"
        case "read", "pread", "readlink", "readlinkat", "readdir", "getdents64": "read"
        case "write", "pwrite", "ftruncate", "fallocate": "write"
        case "mkdir", "mkdirat", "create", "mkfifo", "mknod", "symlink", "symlinkat", "link", "linkat": "create"
        case "stat", "statx", "lstat", "fstat", "fstatat": "examine"
        case "rename", "renameat", "renameat2": "rename"
        case "unlink", "unlinkat", "rmdir": "remove"
        case "realpath": "resolve"
        case "fsync", "fdatasync", "syncfs": "flush"
        case "flock", "fcntl", "lock": "lock"
        case "chmod", "fchmod", "fchmodat": "change the permissions of"
        case "chown", "fchown", "fchownat", "lchown": "change the owner of"
        case "utimensat", "futimens": "set the times of"
        case let other where other.contains("xattr"): "use the extended attributes of"
        default: "use"
        }
    }
}
