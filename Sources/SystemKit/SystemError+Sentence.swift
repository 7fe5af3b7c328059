// SystemError+Sentence: a failed system call as a user reads it: the file, the step in words, the cause.
import Glibc

extension SystemError {
    /// The failure as a user reads it: `PATH: cannot open it: permission denied`, `PATH: no such file or directory`,
    /// or `cannot open: ...` without a path; the call's own name never shows (`description` keeps it, for logs and
    /// tests). Standard input (`-`) is said as such.
    public var sentence: String {
        let reason = phrase
        if path.isEmpty { return "cannot \(SystemError.action(call)): \(reason)" }
        let shown = path == "-" ? "standard input" : path
        if code == ENOENT { return "\(shown): \(reason)" }
        let step = SystemError.step(call)
        return "\(shown): cannot \(step.ofObject ? step.verb : step.verb + " it"): \(reason)"
    }

    /// What the user would call the failed step, said before its object: `open`, `change the permissions of`.
    public static func action(_ call: String) -> String {
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
