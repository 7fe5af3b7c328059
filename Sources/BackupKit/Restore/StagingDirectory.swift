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
    /// directory and goes with it. If any move fails, the moves already made are undone before throwing.
    /// Returns the names moved.
    func moveIntoPlace() throws -> [[UInt8]] {
        var journal: [(name: CName, exchanged: Bool)] = []
        var moved: [[UInt8]] = []
        do {
            for entry in try DirectoryEntries.list(directory.rawValue, display: path) {
                let cName = CName(entry.name)
                let status = cName.withPointer {
                    csupport_renameat2(directory.rawValue, $0, root.rawValue, $0, CSUPPORT_RENAME_NOREPLACE)
                }
                if status == 0 {
                    journal.append((cName, false))
                } else if errno == EEXIST {
                    try SystemError.check("renameat2", path: "\(rootPath)/\(cName.text)") {
                        cName.withPointer {
                            csupport_renameat2(directory.rawValue, $0, root.rawValue, $0, CSUPPORT_RENAME_EXCHANGE)
                        }
                    }
                    journal.append((cName, true))
                } else {
                    throw SystemError("renameat2", path: "\(rootPath)/\(cName.text)")
                }
                moved.append(entry.name)
            }
        } catch {
            for (cName, exchanged) in journal.reversed() {
                _ = cName.withPointer {
                    exchanged
                        ? csupport_renameat2(directory.rawValue, $0, root.rawValue, $0, CSUPPORT_RENAME_EXCHANGE)
                        : csupport_renameat2(root.rawValue, $0, directory.rawValue, $0, CSUPPORT_RENAME_NOREPLACE)
                }
            }
            throw error
        }
        return moved
    }
}
