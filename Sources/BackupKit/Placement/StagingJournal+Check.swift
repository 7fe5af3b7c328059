// StagingJournal+Check: before a stale journal is rolled back, proof that ROOT still is what the moves left.
import Glibc
import SystemKit
import TarKit

extension StagingJournal {
    /// One journal entry as ROOT and the staging directory hold it now.
    struct Check {
        let entry: Entry
        let name: CName
        let staging: Int32
        let root: Int32
        let display: String
        let rootPath: String
        /// ROOT's entry of that name, if any.
        let current: stat?
        /// The staging directory's entry of that name, if any.
        let staged: stat?

        /// ROOT's entry of that name is the staged one: the move happened.
        var moved: Bool { current.map { FileIdentity($0) == entry.staged } ?? false }

        init(entry: Entry, staging: Int32, root: Int32, display: String, rootPath: String) throws {
            self.entry = entry
            name = CName(entry.name)
            self.staging = staging
            self.root = root
            self.display = display
            self.rootPath = rootPath
            current = try Check.status(root, name, display: rootPath)
            staged = try Check.status(staging, name, display: display)
        }

        private static func status(_ directory: Int32, _ name: CName, display: String) throws -> stat? {
            var status = stat()
            if name.withPointer({ fstatat(directory, $0, &status, AT_SYMLINK_NOFOLLOW) }) == 0 { return status }
            guard errno == ENOENT else { throw SystemError("fstatat", path: "\(display)/\(name.text)") }
            return nil
        }

        /// Why rolling this entry back could lose something made since the journal was written (at `written`,
        /// its change time), or nil when it is exactly as the moves left it.
        func problem(changedAfter written: timespec) throws -> String? {
            let path = "\(rootPath)/\(name.text)"
            guard moved else {
                // Not moved yet: ROOT's entry stays as it is; the staged tree must still be in the staging directory.
                guard let staged, FileIdentity(staged) == entry.staged else {
                    return "\(path) is neither in ROOT nor in the staging directory as the restore left it"
                }
                return nil
            }
            if let original = entry.original {
                guard let staged, UInt64(staged.st_ino) == original.inode else {
                    return "the fresh device's \(name.text), which the restore set aside, is gone from \(display)"
                }
            } else if staged != nil {
                return "\(display)/\(name.text) appeared after the restore was interrupted"
            }
            // A move changes the moved entry's change time, never its mtime; a new, removed or renamed entry in it
            // changes both.
            guard let current, isSame(current.st_mtim, entry.stagedMtime) else {
                return "\(path) changed after the restore was interrupted (rolling back would delete the change)"
            }
            guard current.st_mode & S_IFMT == S_IFDIR else { return nil }
            let fd = name.withPointer { openat(root, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            guard fd >= 0 else { throw SystemError("openat", path: path) }
            let directory = FileDescriptor(rawValue: fd, path: path)
            if let changed = try Check.firstChange(in: directory.rawValue, display: path, after: written, depth: 1) {
                return "\(changed) changed after the restore was interrupted (rolling back would delete the change)"
            }
            return nil
        }

        /// The first entry below `directory` whose change time is later than `written`; nil when none is. An
        /// unchanged directory has the entries it had, so only unchanged directories are entered.
        static func firstChange(in directory: Int32, display: String, after written: timespec, depth: Int) throws
            -> String?
        {
            for entry in try DirectoryEntries.list(directory, display: display) {
                let name = CName(entry.name)
                let path = "\(display)/\(name.text)"
                var status = stat()
                try SystemError.check("fstatat", path: path) {
                    name.withPointer { fstatat(directory, $0, &status, AT_SYMLINK_NOFOLLOW) }
                }
                if isLater(status.st_ctim, than: written) { return path }
                guard status.st_mode & S_IFMT == S_IFDIR else { continue }
                // Deeper than any restore makes (MemberPath: 256 levels): not the restore's tree.
                guard depth < 512 else { return path }
                let fd = name.withPointer { openat(directory, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
                guard fd >= 0 else {
                    // Unsearchable and unchanged since (a chmod would have changed it): nothing was added inside.
                    if errno == EACCES { continue }
                    throw SystemError("openat", path: path)
                }
                let child = FileDescriptor(rawValue: fd, path: path)
                if let changed = try firstChange(in: child.rawValue, display: path, after: written, depth: depth + 1) {
                    return changed
                }
                try child.close()
            }
            return nil
        }
    }

    /// Whether `name` is one path component (what a journal line may name in ROOT).
    static func isComponent(_ name: [UInt8]) -> Bool {
        !name.isEmpty && name.count <= MemberPath.maxComponent && name != [46] && name != [46, 46]
            && !name.contains(0) && !name.contains(UInt8(ascii: "/"))
    }

    static func isLater(_ time: timespec, than other: timespec) -> Bool {
        time.tv_sec > other.tv_sec || (time.tv_sec == other.tv_sec && time.tv_nsec > other.tv_nsec)
    }

    static func isSame(_ time: timespec, _ other: timespec) -> Bool {
        time.tv_sec == other.tv_sec && time.tv_nsec == other.tv_nsec
    }
}
