// TreeRemoval: removes a directory tree through descriptors (never following a symlink, never leaving it).
import Glibc
import SystemKit

enum TreeRemoval {
    /// Removes `name` in `directory` and, if it is a directory, everything below it.
    static func remove(_ name: [UInt8], in directory: Int32, display: String) throws {
        let cName = CName(name)
        if cName.withPointer({ unlinkat(directory, $0, 0) }) == 0 { return }
        let code = errno
        if code == ENOENT { return }
        guard code == EISDIR || code == EPERM else { throw SystemError("unlinkat", path: display, code: code) }
        var fd = cName.withPointer { openat(directory, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        if fd < 0 && errno == EACCES {
            _ = cName.withPointer { fchmodat(directory, $0, 0o700, 0) }
            fd = cName.withPointer { openat(directory, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        }
        if fd < 0 { throw SystemError("openat", path: display) }
        let handle = FileDescriptor(rawValue: fd, path: display)
        // A directory we cannot write cannot lose entries: give ourselves write and search permission first.
        _ = fchmod(fd, 0o700)
        for entry in try DirectoryEntries.list(fd, display: display) {
            let child = display + "/" + String(decoding: entry.name, as: UTF8.self)
            try remove(entry.name, in: fd, display: child)
        }
        try handle.close()
        try SystemError.check("unlinkat", path: display) { cName.withPointer { unlinkat(directory, $0, AT_REMOVEDIR) } }
    }
}
