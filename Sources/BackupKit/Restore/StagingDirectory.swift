// StagingDirectory: ROOT/.devicectl-restore-<pid>-<random>: where a restore is built before it is moved into place.
import CSupport
import Glibc
import SystemKit

/// The staging directory inside ROOT (same file system, so the final moves are renames).
final class StagingDirectory {
    static let prefix = ".devicectl-restore-"

    /// ROOT, open as a directory.
    let root: FileDescriptor
    let rootPath: String
    /// The directory's name in ROOT.
    let name: [UInt8]
    /// The staging directory, open as a directory.
    let directory: FileDescriptor
    private var removed = false

    /// The absolute path of the staging directory (for DeviceKit, which works with paths).
    var path: String { rootPath + "/" + String(decoding: name, as: UTF8.self) }

    /// Creates a new staging directory (mode 0700) in `root`.
    init(root: FileDescriptor, rootPath: String) throws {
        self.root = root
        self.rootPath = rootPath
        let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        name = Array("\(StagingDirectory.prefix)\(getpid())-\(suffix)".utf8)
        let cName = CName(name)
        try SystemError.check("mkdirat", path: rootPath) { cName.withPointer { mkdirat(root.rawValue, $0, 0o700) } }
        do {
            let fd = try SystemError.check("openat", path: rootPath) {
                cName.withPointer { openat(root.rawValue, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
            }
            directory = FileDescriptor(rawValue: fd, path: cName.text)
        } catch {
            _ = cName.withPointer { unlinkat(root.rawValue, $0, AT_REMOVEDIR) }
            throw error
        }
    }

    /// Removes staging directories left by restores whose process is gone (killed runs). Returns their names.
    @discardableResult
    static func removeStale(in root: FileDescriptor, rootPath: String) throws -> [String] {
        var removed: [String] = []
        for entry in try DirectoryEntries.list(root.rawValue, display: rootPath) where entry.isDirectory {
            let name = String(decoding: entry.name, as: UTF8.self)
            guard name.hasPrefix(prefix) else { continue }
            let pidText = name.dropFirst(prefix.count).prefix { $0 != "-" }
            guard let pid = Int32(pidText), pid > 0 else { continue }
            if kill(pid, 0) == 0 || errno != ESRCH { continue }  // still running (or not ours to judge)
            // Killed while moving the staged tree into ROOT: put ROOT back first (see StagingJournal).
            let stale = CName(entry.name).withPointer {
                openat(root.rawValue, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            if stale >= 0 {
                let staleDirectory = FileDescriptor(rawValue: stale, path: "\(rootPath)/\(name)")
                try StagingJournal.rollBack(staging: stale, root: root.rawValue, display: staleDirectory.path)
                try staleDirectory.close()
            }
            try TreeRemoval.remove(entry.name, in: root.rawValue, display: "\(rootPath)/\(name)")
            removed.append(name)
        }
        return removed
    }

    /// Removes the staging directory and everything in it (idempotent).
    func remove() throws {
        guard !removed else { return }
        try TreeRemoval.remove(name, in: root.rawValue, display: path)
        removed = true
    }

    /// Moves every top-level entry of the staging directory into ROOT: renameat2(RENAME_NOREPLACE), or
    /// RENAME_EXCHANGE with ROOT's existing (empty skeleton) entry of that name, which lands in the staging
    /// directory and goes with it. If any move fails, the moves already made are undone before throwing; if
    /// the process dies between two moves, the journal written first lets the next restore undo them
    /// (`removeStale`). `sync` flushes the journal to disk before the first move. Returns the names moved.
    func moveIntoPlace(sync: Bool = true) throws -> [[UInt8]] {
        let names = try DirectoryEntries.list(directory.rawValue, display: path).map(\.name)
            .filter { $0 != StagingJournal.name }
        try StagingJournal.write(
            try StagingJournal.entries(names, staging: directory.rawValue, root: root.rawValue, display: path),
            in: directory.rawValue, display: path, sync: sync)
        do {
            for name in names {
                let cName = CName(name)
                let status = cName.withPointer {
                    csupport_renameat2(directory.rawValue, $0, root.rawValue, $0, CSUPPORT_RENAME_NOREPLACE)
                }
                if status != 0 && errno == EEXIST {
                    try SystemError.check("renameat2", path: "\(rootPath)/\(cName.text)") {
                        cName.withPointer {
                            csupport_renameat2(directory.rawValue, $0, root.rawValue, $0, CSUPPORT_RENAME_EXCHANGE)
                        }
                    }
                } else if status != 0 {
                    throw SystemError("renameat2", path: "\(rootPath)/\(cName.text)")
                }
            }
        } catch {
            // The journal knows what moved: undo exactly that (and remove the journal).
            _ = try? StagingJournal.rollBack(staging: directory.rawValue, root: root.rawValue, display: path)
            throw error
        }
        StagingJournal.remove(in: directory.rawValue)
        return names
    }
}
