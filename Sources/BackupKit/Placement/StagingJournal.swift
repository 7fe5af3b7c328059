// StagingJournal: what the final moves of a restore are about to do, written before the first one, so that a
// restore killed between two moves (SIGKILL, a crash) can be rolled back by the next one, and only when ROOT is
// still exactly what the moves left: a stale journal never deletes what was made on the device since.
import DeviceKit
import Foundation
import Glibc
import SystemKit

/// The journal file `.devicectl-restore-journal` inside a staging directory (a name no archive member can
/// take: the prefix is reserved). A header line `devicectl-restore-journal 2`, then one line per top-level
/// entry to move into ROOT: `<name hex> <staged dev> <staged inode> <staged mtime s> <staged mtime ns>
/// <ROOT's entry inode or -> <its mtime s or -> <its mtime ns or ->`.
/// Present only while the moves run; `moveIntoPlace` removes it once every move is done. Its change time marks
/// the moment after which nothing in the staged tree changed: anything below a moved entry with a later change
/// time was changed on the device after the restore died (see `StagingJournal+Check`).
enum StagingJournal {
    static let name = Array(DeviceLayout.restoreJournal.utf8)
    static let header = "devicectl-restore-journal 2"
    /// A journal larger than this is not one devicectl wrote (about 100,000 top-level entries).
    static let maxBytes = 64 << 20

    struct Entry {
        let name: [UInt8]
        /// (device, inode) of the staged entry: after its move, ROOT's entry of that name has it.
        let staged: FileIdentity
        /// The staged entry's mtime when the journal was written (a move does not change it).
        let stagedMtime: timespec
        /// ROOT's own entry of that name (exchanged into the staging directory by the move), if any.
        let original: (inode: UInt64, mtime: timespec)?
    }

    /// A device and inode number: what a name refers to, whatever it is called.
    struct FileIdentity: Equatable {
        let device: UInt64
        let inode: UInt64

        init(device: UInt64, inode: UInt64) {
            self.device = device
            self.inode = inode
        }

        init(_ status: stat) {
            self.init(device: UInt64(status.st_dev), inode: UInt64(status.st_ino))
        }
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
            return Entry(name: name, staged: FileIdentity(staged), stagedMtime: staged.st_mtim, original: original)
        }
    }

    /// The journal's text for `entries`.
    static func text(_ entries: [Entry]) -> String {
        var text = header + "\n"
        for entry in entries {
            let hex = Hex.encode(entry.name)
            let original = entry.original.map { "\($0.inode) \($0.mtime.tv_sec) \($0.mtime.tv_nsec)" } ?? "- - -"
            text += "\(hex) \(entry.staged.device) \(entry.staged.inode) "
            text += "\(entry.stagedMtime.tv_sec) \(entry.stagedMtime.tv_nsec) \(original)\n"
        }
        return text
    }

    /// Writes the journal into `staging` (flushed to disk when `sync`) under a temporary name renamed onto the
    /// journal's, so a journal is whole or absent whenever the process dies; then waits until the file system's
    /// clock has moved past the journal's change time, so that every later change on it is seen as later.
    static func write(_ entries: [Entry], in staging: Int32, display: String, sync: Bool) throws {
        let bytes = Array(text(entries).utf8)
        let cName = CName(name)
        let temporary = CName(name + Array(".new".utf8))
        guard bytes.count <= maxBytes else {
            throw RestoreError.aborted("the archive has too many top-level entries (\(entries.count)) to move in")
        }
        let fd = try SystemError.check("openat", path: "\(display)/\(temporary.text)") {
            temporary.withPointer { openat(staging, $0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        }
        let file = FileDescriptor(rawValue: fd, path: "\(display)/\(temporary.text)")
        try file.write(bytes)
        if sync { try file.sync() }
        try SystemError.check("renameat", path: "\(display)/\(cName.text)") {
            temporary.withPointer { from in cName.withPointer { renameat(staging, from, staging, $0) } }
        }
        if sync { try SystemError.check("fsync", path: display) { fsync(staging) } }
        // After the rename, which sets the change time too.
        var written = stat()
        try SystemError.check("fstat", path: file.path) { fstat(file.rawValue, &written) }
        try file.close()
        try waitForLaterChangeTime(than: written.st_ctim, probe: staging, display: display)
    }

    /// Touches `probe` until its change time is later than `time` (one clock tick at most, a few ms).
    private static func waitForLaterChangeTime(than time: timespec, probe: Int32, display: String) throws {
        var status = stat()
        for _ in 0..<2000 {
            try SystemError.check("futimens", path: display) { futimens(probe, nil) }
            try SystemError.check("fstat", path: display) { fstat(probe, &status) }
            if isLater(status.st_ctim, than: time) { return }
            var pause = timespec(tv_sec: 0, tv_nsec: 500_000)
            nanosleep(&pause, nil)
        }
        throw RestoreError.aborted("\(display): the file system's clock did not advance for a second")
    }

    /// Removes the journal: every move is done.
    static func remove(in staging: Int32) {
        _ = CName(name).withPointer { unlinkat(staging, $0, 0) }
    }

    /// If `staging` holds a journal (its restore was killed while moving entries into `root`), moves every entry
    /// that reached ROOT back into the staging directory (exchanging ROOT's original back), resets the
    /// originals' mtimes and removes the journal. Returns whether a journal was found.
    ///
    /// With `verify` (a journal left by a restore that died), nothing is done unless ROOT still is exactly what
    /// the moves left: every moved entry still there, nothing below it changed since the journal was written,
    /// every original still in the staging directory. Otherwise `RestoreError.cannotRollBack` says why, and
    /// nothing was changed. Safe to repeat after a kill: each entry is either moved or not.
    @discardableResult
    static func rollBack(staging: Int32, root: Int32, display: String, rootPath: String, verify: Bool) throws -> Bool
    {
        let cName = CName(name)
        // O_NONBLOCK: a FIFO planted under the journal's name must not hang the restore (it is refused below).
        let fd = cName.withPointer { openat(staging, $0, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) }
        guard fd >= 0 else {
            if errno == ENOENT { return false }
            throw SystemError("openat", path: "\(display)/\(cName.text)")
        }
        let file = FileDescriptor(rawValue: fd, path: "\(display)/\(cName.text)")
        var journalStatus = stat()
        try SystemError.check("fstat", path: file.path) { fstat(fd, &journalStatus) }
        func refuse(_ reason: String) -> RestoreError {
            .cannotRollBack(root: rootPath, staging: display, reason: reason)
        }
        guard journalStatus.st_mode & S_IFMT == S_IFREG, journalStatus.st_size <= maxBytes else {
            throw refuse("its journal \(file.path) is not a file devicectl wrote")
        }
        let entries: [Entry]
        do {
            entries = try parse(try readCapped(file))
        } catch let error as JournalFormatError {
            throw refuse("its journal \(file.path) cannot be read (\(error.reason))")
        }
        try file.close()
        var states: [(entry: Entry, moved: Bool)] = []
        for entry in entries {
            let state = try Check(entry: entry, staging: staging, root: root, display: display, rootPath: rootPath)
            if verify, let problem = try state.problem(changedAfter: journalStatus.st_ctim) { throw refuse(problem) }
            states.append((entry, state.moved))
        }
        for (entry, moved) in states {
            let entryName = CName(entry.name)
            if moved {
                // Moved with NOREPLACE: move it back; exchanged: exchange again (ROOT's original returns).
                let exchanged = entry.original != nil
                try SystemError.check("renameat2", path: "\(rootPath)/\(entryName.text)") {
                    entryName.withPointer {
                        exchanged
                            ? Kernel.renameat2(staging, $0, root, $0, .exchange)
                            : Kernel.renameat2(root, $0, staging, $0, .noReplace)
                    }
                }
            }
            var current = stat()
            if let original = entry.original,
                entryName.withPointer({ fstatat(root, $0, &current, AT_SYMLINK_NOFOLLOW) }) == 0,
                UInt64(current.st_ino) == original.inode
            {
                try? entryName.withPointer { try ModificationTime.set(original.mtime, name: $0, in: root, path: "") }
            }
        }
        remove(in: staging)
        return true
    }

    /// The file's bytes, refusing more than `maxBytes` whatever its size said.
    private static func readCapped(_ file: borrowing FileDescriptor) throws -> [UInt8] {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let count = try chunk.withUnsafeMutableBytes { try file.read(into: $0) }
            if count == 0 { return bytes }
            bytes += chunk[0..<count]
            if bytes.count > maxBytes { throw JournalFormatError(reason: "it is larger than any journal") }
        }
    }

    /// Why a journal's bytes are not a journal.
    struct JournalFormatError: Error {
        let reason: String
    }

    /// The entries of a journal; throws on anything this version does not write.
    static func parse(_ bytes: [UInt8]) throws(JournalFormatError) -> [Entry] {
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard bytes.last == UInt8(ascii: "\n"), let first = lines.first else {
            throw JournalFormatError(reason: "it is empty or its last line is cut short")
        }
        guard String(decoding: first, as: UTF8.self) == header else {
            throw JournalFormatError(reason: "it was written by another version of devicectl")
        }
        var entries: [Entry] = []
        for (index, line) in lines.dropFirst().dropLast().enumerated() {
            guard let entry = entry(String(decoding: line, as: UTF8.self)) else {
                throw JournalFormatError(reason: "line \(index + 2) is malformed")
            }
            entries.append(entry)
        }
        return entries
    }

    private static func entry(_ line: String) -> Entry? {
        let fields = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 8, !fields[0].isEmpty, let name = Hex.decode(fields[0].utf8), isComponent(name),
            let device = UInt64(fields[1]), let inode = UInt64(fields[2]),
            let stagedMtime = time(fields[3], fields[4])
        else { return nil }
        let original: (UInt64, timespec)?
        if fields[5...7].allSatisfy({ $0 == "-" }) {
            original = nil
        } else {
            guard let inode = UInt64(fields[5]), let mtime = time(fields[6], fields[7]) else { return nil }
            original = (inode, mtime)
        }
        return Entry(
            name: name, staged: FileIdentity(device: device, inode: inode), stagedMtime: stagedMtime,
            original: original)
    }

    private static func time(_ seconds: String, _ nanoseconds: String) -> timespec? {
        guard let seconds = Int(seconds), let nanoseconds = Int(nanoseconds), (0..<1_000_000_000).contains(nanoseconds)
        else { return nil }
        return timespec(tv_sec: seconds, tv_nsec: nanoseconds)
    }
}
