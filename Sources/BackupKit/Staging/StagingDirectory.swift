// StagingDirectory: ROOT/.devicectl-restore-<pid>-<random>: where a restore is built before it is moved into place.
import Glibc
import SystemKit

/// The staging directory inside ROOT (same file system, so the final moves are renames).
final class StagingDirectory {
    static let prefix = ".devicectl-restore-"

    /// ROOT, open as a directory.
    let root: SharedDescriptor
    let rootPath: String
    /// The directory's name in ROOT.
    let name: [UInt8]
    /// The staging directory, open as a directory.
    let directory: SharedDescriptor
    private var removed = false

    /// The absolute path of the staging directory (for DeviceKit, which works with paths).
    var path: String { rootPath + "/" + String(decoding: name, as: UTF8.self) }

    /// Creates a new staging directory (mode 0700) in `root`.
    init(root: SharedDescriptor, rootPath: String) throws {
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
            let opened = FileDescriptor(rawValue: fd, path: cName.text)
            // Held until the process ends: how every other devicectl tells a live restore's directory (and its
            // journal) from one a killed restore left (`removeStale`, `Device.refuseInterruptedRestore`).
            try SystemError.check("flock", path: "\(rootPath)/\(cName.text)") { flock(fd, LOCK_EX | LOCK_NB) }
            directory = SharedDescriptor(opened)
        } catch {
            _ = cName.withPointer { unlinkat(root.rawValue, $0, AT_REMOVEDIR) }
            throw error
        }
    }

    /// Removes staging directories left by restores that are gone (killed runs): one whose `flock` can be taken
    /// has no live owner. A journal in one is rolled back first, if ROOT is still what its moves left
    /// (`StagingJournal.rollBack`; otherwise `RestoreError.cannotRollBack` and nothing is removed). The caller
    /// holds the device lock. Returns their names.
    @discardableResult
    static func removeStale(in root: borrowing FileDescriptor, rootPath: String) throws -> [String] {
        var removed: [String] = []
        for entry in try DirectoryEntries.list(root.rawValue, display: rootPath) {
            let name = String(decoding: entry.name, as: UTF8.self)
            guard entry.name.starts(with: Array(prefix.utf8)), entry.name != StagingJournal.name else { continue }
            let stale = CName(entry.name).withPointer {
                openat(root.rawValue, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            }
            guard stale >= 0 else { continue }  // not a directory: not a staging directory
            let staleDirectory = FileDescriptor(rawValue: stale, path: "\(rootPath)/\(name)")
            guard flock(stale, LOCK_EX | LOCK_NB) == 0 else { continue }  // its restore still runs
            // Killed while moving the staged tree into ROOT: put ROOT back first (see StagingJournal).
            try StagingJournal.rollBack(
                staging: stale, root: root.rawValue, display: staleDirectory.path, rootPath: rootPath, verify: true)
            try TreeRemoval.remove(entry.name, in: root.rawValue, display: staleDirectory.path)
            try staleDirectory.close()
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
    /// directory and goes with it. If any move fails, or `interruption` reports a signal after a move, the moves
    /// already made are undone before throwing; if the process dies between two moves, the journal written first
    /// lets the next restore undo them (`removeStale`). `sync` flushes the journal to disk before the first move.
    /// Returns the names moved.
    func moveIntoPlace(sync: Bool = true, interruption: () -> Int32? = { nil }) throws -> [[UInt8]] {
        let names = try DirectoryEntries.list(directory.rawValue, display: path).map(\.name)
            .filter { $0 != StagingJournal.name }
        try StagingJournal.write(
            try StagingJournal.entries(names, staging: directory.rawValue, root: root.rawValue, display: path),
            in: directory.rawValue, display: path, sync: sync)
        do {
            for name in names {
                let cName = CName(name)
                let status = cName.withPointer {
                    Kernel.renameat2(directory.rawValue, $0, root.rawValue, $0, .noReplace)
                }
                if status != 0 && errno == EEXIST {
                    try SystemError.check("renameat2", path: "\(rootPath)/\(cName.text)") {
                        cName.withPointer {
                            Kernel.renameat2(directory.rawValue, $0, root.rawValue, $0, .exchange)
                        }
                    }
                } else if status != 0 {
                    throw SystemError("renameat2", path: "\(rootPath)/\(cName.text)")
                }
                if let signal = interruption() { throw RestoreError.interrupted(signal: signal) }
            }
        } catch {
            // The journal knows what moved: undo exactly that (and remove the journal).
            _ = try? StagingJournal.rollBack(
                staging: directory.rawValue, root: root.rawValue, display: path, rootPath: rootPath, verify: false)
            throw error
        }
        StagingJournal.remove(in: directory.rawValue)
        return names
    }
}
