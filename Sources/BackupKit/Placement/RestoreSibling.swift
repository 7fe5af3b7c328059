// RestoreSibling: PARENT/.ROOTNAME.devicectl-new-<random>: where a restore onto an absent ROOT builds the whole
// device, renamed onto ROOT once it is complete, so a killed restore leaves ROOT absent (and this directory).
import Glibc
import SystemKit

/// A new device directory beside ROOT (mode 0700, same file system, so the final move is one rename). The
/// restore holds an exclusive `flock` on it for its whole life: a sibling whose lock can be taken was left by a
/// killed restore, and the next restore onto the same ROOT removes it.
final class RestoreSibling {
    static let marker = Array(".devicectl-new-".utf8)
    /// Bytes of ROOT's name kept in the sibling's name (which must stay within NAME_MAX).
    static let keptNameBytes = 200

    /// The parent of ROOT, open as a directory.
    let parent: FileDescriptor
    let parentPath: String
    /// ROOT's name in the parent.
    let rootName: [UInt8]
    /// The sibling's name in the parent.
    let name: [UInt8]
    /// The sibling, open as a directory (and locked; ROOT's descriptor in the restore).
    let directory: SharedDescriptor

    /// The absolute path of the sibling (what the restore initialises and fills).
    var path: String { parentPath + "/" + String(decoding: name, as: UTF8.self) }
    /// The absolute path of ROOT.
    var rootPath: String { parentPath + "/" + String(decoding: rootName, as: UTF8.self) }

    /// Creates and locks a new empty sibling of `rootName` in `parent`. `afterCreating` (tests) runs between the
    /// mkdirat and the openat of each try, with the name made.
    init(
        parent: consuming FileDescriptor, parentPath: String, rootName: [UInt8],
        afterCreating: ((String) -> Void)? = nil
    ) throws {
        self.parentPath = parentPath
        self.rootName = rootName
        let parentDescriptor = parent.rawValue
        self.parent = parent
        while true {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 16)
            let name = RestoreSibling.prefix(rootName) + Array(suffix.utf8)
            let cName = CName(name)
            let shown = parentPath + "/" + cName.text
            guard cName.withPointer({ mkdirat(parentDescriptor, $0, 0o700) }) == 0 else {
                if errno == EEXIST { continue }
                throw SystemError("mkdirat", path: shown)
            }
            afterCreating?(cName.text)
            let fd = cName.withPointer { openat(parentDescriptor, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            guard fd >= 0 else {
                let code = errno
                // Another restore onto the same absent ROOT took it for stale between the mkdirat and the openat
                // (its lock was free) and removed it: make another.
                if code == ENOENT { continue }
                throw SystemError("openat", path: shown, code: code)
            }
            let directory = FileDescriptor(rawValue: fd, path: shown)
            try SystemError.check("flock", path: shown) { flock(fd, LOCK_EX) }
            // Another restore may have taken it for stale between the mkdirat and the flock, and removed it.
            var held = stat()
            var named = stat()
            let stillNamed = cName.withPointer { fstatat(parentDescriptor, $0, &named, AT_SYMLINK_NOFOLLOW) } == 0
            guard fstat(fd, &held) == 0, stillNamed, held.st_ino == named.st_ino, held.st_dev == named.st_dev else {
                continue
            }
            self.name = name
            self.directory = SharedDescriptor(directory)
            return
        }
    }

    /// `.ROOTNAME.devicectl-new-`: the start of every sibling's name for `rootName`.
    static func prefix(_ rootName: [UInt8]) -> [UInt8] {
        [UInt8(ascii: ".")] + rootName.prefix(keptNameBytes) + marker
    }

    /// Removes the siblings of `rootName` in `parent` that killed restores left (their lock can be taken, they
    /// are directories of this user). Returns their names.
    @discardableResult
    static func removeStale(in parent: borrowing FileDescriptor, parentPath: String, rootName: [UInt8]) throws -> [String] {
        let start = prefix(rootName)
        var removed: [String] = []
        let entries = try DirectoryEntries.list(parent.rawValue, display: parentPath)
        for entry in entries where entry.name.starts(with: start) {
            let cName = CName(entry.name)
            let shown = parentPath + "/" + cName.text
            let fd = cName.withPointer { openat(parent.rawValue, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            guard fd >= 0 else { continue }
            let stale = FileDescriptor(rawValue: fd, path: shown)
            var status = stat()
            guard fstat(fd, &status) == 0, status.st_uid == geteuid(), flock(fd, LOCK_EX | LOCK_NB) == 0 else {
                continue
            }
            // The lock was free: the restore that made it died, or it has just finished and renamed its sibling onto
            // ROOT (then released the lock). Only a directory still under the sibling's name is stale; with the lock
            // held nobody renames it any more, so this check stands until the removal.
            var named = stat()
            let stillNamed = cName.withPointer { fstatat(parent.rawValue, $0, &named, AT_SYMLINK_NOFOLLOW) } == 0
            guard stillNamed, named.st_ino == status.st_ino, named.st_dev == status.st_dev else { continue }
            try TreeRemoval.remove(entry.name, in: parent.rawValue, display: shown)
            try stale.close()
            removed.append(cName.text)
        }
        return removed
    }

    /// Gives the finished device ROOT's name: mode 0755 less the umask (what `mkdir` would have made), then one
    /// `renameat2(RENAME_NOREPLACE)` and an fsync of the parent. Throws `RestoreError.rootNotFresh` when ROOT
    /// appeared meanwhile (another restore or `init` made it first); the sibling is then still there.
    func moveOntoRoot(umask: mode_t) throws {
        try SystemError.check("fchmod", path: path) { fchmod(directory.rawValue, 0o755 & ~umask) }
        let from = CName(name)
        let to = CName(rootName)
        let status = from.withPointer { source in
            to.withPointer { target in
                Kernel.renameat2(parent.rawValue, source, parent.rawValue, target, .noReplace)
            }
        }
        if status != 0 {
            if errno == EEXIST { throw RestoreError.rootNotFresh(rootPath) }
            throw SystemError("renameat2", path: rootPath)
        }
        try SystemError.check("fsync", path: parentPath) { fsync(parent.rawValue) }
    }

    /// Removes the sibling and everything in it.
    func remove() throws {
        try TreeRemoval.remove(name, in: parent.rawValue, display: path)
    }
}
