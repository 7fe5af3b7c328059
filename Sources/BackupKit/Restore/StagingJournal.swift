// StagingJournal: what the final moves of a restore are about to do, written before the first one, so that a
// restore killed between two moves (SIGKILL, a crash) can be rolled back by the next one: ROOT is never left
// half restored.
import CSupport
import Glibc
import SystemKit

/// The journal file `.devicectl-restore-journal` inside a staging directory (a name no archive member can
/// take: the prefix is reserved). One line per top-level entry to move into ROOT:
/// `<name hex> <staged dev> <staged inode> <ROOT's entry inode or -> <its mtime s or -> <its mtime ns or ->`.
/// Present only while the moves run; `moveIntoPlace` removes it once every move is done.
enum StagingJournal {
    static let name = Array("\(StagingDirectory.prefix)journal".utf8)

    struct Entry {
        let name: [UInt8]
        /// (device, inode) of the staged entry: after its move, ROOT's entry of that name has it.
        let staged: (UInt64, UInt64)
        /// ROOT's own entry of that name (exchanged into the staging directory by the move), if any.
        let original: (inode: UInt64, mtime: timespec)?
    }

    /// The entries for moving `names` from `staging` into `root`.
    static func entries(_ names: [[UInt8]], staging: Int32, root: Int32, display: String) throws -> [Entry] {
        try names.map { name in
            let cName = CName(name)
            var staged = stat()
            try SystemError.check("fstatat", path: "\(display)/\(cName.text)") {
                cName.withPointer { fstatat(staging, $0, &staged, AT_SYMLINK_NOFOLLOW) }
            }
            var existing = stat()
            let original =
                cName.withPointer { fstatat(root, $0, &existing, AT_SYMLINK_NOFOLLOW) } == 0
                ? (UInt64(existing.st_ino), existing.st_mtim) : nil
            return Entry(name: name, staged: (UInt64(staged.st_dev), UInt64(staged.st_ino)), original: original)
        }
    }

    /// Writes the journal into `staging` (flushed to disk when `sync`).
    static func write(_ entries: [Entry], in staging: Int32, display: String, sync: Bool) throws {
        var text = ""
        for entry in entries {
            let hex = entry.name.map { String(format: "%02x", $0) }.joined()
            let original = entry.original.map { "\($0.inode) \($0.mtime.tv_sec) \($0.mtime.tv_nsec)" } ?? "- - -"
            text += "\(hex) \(entry.staged.0) \(entry.staged.1) \(original)\n"
        }
        let cName = CName(name)
        let fd = try SystemError.check("openat", path: "\(display)/\(cName.text)") {
            cName.withPointer { openat(staging, $0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        }
        let file = FileDescriptor(rawValue: fd, path: "\(display)/\(cName.text)")
        try file.write(Array(text.utf8))
        if sync {
            try file.sync()
            try SystemError.check("fsync", path: display) { fsync(staging) }
        }
        try file.close()
    }

    /// Removes the journal: every move is done.
    static func remove(in staging: Int32) {
        _ = CName(name).withPointer { unlinkat(staging, $0, 0) }
    }

    /// If `staging` holds a journal (its restore was killed while moving entries into `root`), moves every entry
    /// that reached ROOT back into the staging directory (exchanging ROOT's original back) and resets the
    /// originals' mtimes. Returns whether a journal was found. Safe to repeat: each step checks inodes first.
    @discardableResult
    static func rollBack(staging: Int32, root: Int32, display: String) throws -> Bool {
        let cName = CName(name)
        let fd = cName.withPointer { openat(staging, $0, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        guard fd >= 0 else { return false }
        let text = String(
            decoding: try FileDescriptor(rawValue: fd, path: "\(display)/\(cName.text)").readAll(), as: UTF8.self)
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ").map(String.init)
            guard fields.count == 6, let dev = UInt64(fields[1]), let inode = UInt64(fields[2]) else { continue }
            let entryName = CName(hexBytes(fields[0]))
            var current = stat()
            let present = entryName.withPointer { fstatat(root, $0, &current, AT_SYMLINK_NOFOLLOW) } == 0
            if present && UInt64(current.st_dev) == dev && UInt64(current.st_ino) == inode {
                // Moved with NOREPLACE: move it back; exchanged: exchange again (ROOT's original returns).
                let exchanged = fields[3] != "-"
                try SystemError.check("renameat2", path: "\(display)/\(entryName.text)") {
                    entryName.withPointer {
                        exchanged
                            ? csupport_renameat2(staging, $0, root, $0, CSUPPORT_RENAME_EXCHANGE)
                            : csupport_renameat2(root, $0, staging, $0, CSUPPORT_RENAME_NOREPLACE)
                    }
                }
            }
            if let seconds = Int(fields[4]), let nanoseconds = Int(fields[5]) {
                var times = [
                    timespec(tv_sec: 0, tv_nsec: CSUPPORT_UTIME_OMIT), timespec(tv_sec: seconds, tv_nsec: nanoseconds),
                ]
                _ = entryName.withPointer { utimensat(root, $0, &times, AT_SYMLINK_NOFOLLOW) }
            }
        }
        remove(in: staging)
        return true
    }

    private static func hexBytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            if let byte = UInt8(hex[index..<next], radix: 16) { bytes.append(byte) }
            index = next
        }
        return bytes
    }
}
