// StagingJournalTests: a journal left in a device root is hostile input too. Each case here plants one, built
// byte by byte, in the staging directory of a killed restore (no live owner: nobody holds its flock): every
// device command refuses the device, and a restore refuses to roll it back, says why and changes nothing.
@testable import BackupKit
import DeviceKit
import Foundation
import Glibc
import SystemKit
import TestSupport
import Testing

/// One planted journal: `plant` gets ROOT and the staging directory and writes the journal (or what stands in
/// for it); the restore must fail with a message containing `reason`.
struct HostileJournal: CustomTestStringConvertible, Sendable {
    let name: String
    let reason: String
    let plant: @Sendable (_ root: String, _ staging: String) throws -> Void
    var testDescription: String { name }

    /// A journal of `text` (the header line first unless `header` is false).
    init(_ name: String, reason: String, header: Bool = true, _ text: String) {
        self.init(name, reason: reason) { _, staging in
            try HostileJournal.write((header ? StagingJournal.header + "\n" : "") + text, in: staging)
        }
    }

    init(_ name: String, reason: String, plant: @escaping @Sendable (String, String) throws -> Void) {
        self.name = name
        self.reason = reason
        self.plant = plant
    }

    static func write(_ text: String, in staging: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: staging + "/" + DeviceLayout.restoreJournal))
    }

    static func hex(_ name: String) -> String {
        name.utf8.map { String(format: "%02x", $0) }.joined()
    }

    /// "<dev> <inode> <mtime s> <mtime ns>" of `path` (what a journal records for a staged entry).
    static func identity(_ path: String) throws -> String {
        var status = stat()
        guard lstat(path, &status) == 0 else { throw SystemError("lstat", path: path) }
        return "\(status.st_dev) \(status.st_ino) \(status.st_mtim.tv_sec) \(status.st_mtim.tv_nsec)"
    }
}

@Suite struct StagingJournalTests {
    static let malformed = "cannot be read"

    static let cases: [HostileJournal] = [
        HostileJournal("no header (an older format)", reason: "another version", header: false, "4c6962 1 2 - - -\n"),
        HostileJournal("empty", reason: "empty", header: false, ""),
        HostileJournal("last line cut short", reason: "cut short", "4c6962 1 2 3 4 - - -"),
        HostileJournal("seven fields", reason: "line 2 is malformed", "4c6962 1 2 3 4 - -\n"),
        HostileJournal(
            "a slash in the name", reason: "line 2 is malformed", "\(HostileJournal.hex("a/b")) 1 2 3 4 - - -\n"),
        HostileJournal("the name ..", reason: "line 2 is malformed", "\(HostileJournal.hex("..")) 1 2 3 4 - - -\n"),
        HostileJournal("a NUL in the name", reason: "line 2 is malformed", "4c00 1 2 3 4 - - -\n"),
        HostileJournal("odd-length hex", reason: "line 2 is malformed", "4c6 1 2 3 4 - - -\n"),
        HostileJournal("not hex", reason: "line 2 is malformed", "zz 1 2 3 4 - - -\n"),
        HostileJournal("an empty name", reason: "line 2 is malformed", " 1 2 3 4 - - -\n"),
        HostileJournal(
            "a name over 255 bytes", reason: "line 2 is malformed",
            "\(HostileJournal.hex(String(repeating: "x", count: 256))) 1 2 3 4 - - -\n"),
        HostileJournal("nanoseconds out of range", reason: "line 2 is malformed", "4c6962 1 2 3 1000000000 - - -\n"),
        HostileJournal("a negative inode", reason: "line 2 is malformed", "4c6962 1 -2 3 4 - - -\n"),
        HostileJournal("half an original", reason: "line 2 is malformed", "4c6962 1 2 3 4 5 - -\n"),
        HostileJournal("a bad third line", reason: "line 3 is malformed", "4c6962 1 2 3 4 - - -\nnonsense\n"),
        HostileJournal("larger than any journal", reason: "not a file devicectl wrote") { _, staging in
            let path = staging + "/" + DeviceLayout.restoreJournal
            let fd = open(path, O_WRONLY | O_CREAT, 0o600)
            defer { close(fd) }
            guard ftruncate(fd, off_t(StagingJournal.maxBytes) + 1) == 0 else { throw SystemError("ftruncate") }
        },
        HostileJournal("a directory", reason: "not a file devicectl wrote") { _, staging in
            try FileManager.default.createDirectory(
                atPath: staging + "/" + DeviceLayout.restoreJournal, withIntermediateDirectories: false)
        },
        HostileJournal("a FIFO (opening it must not hang)", reason: "not a file devicectl wrote") { _, staging in
            guard mkfifo(staging + "/" + DeviceLayout.restoreJournal, 0o600) == 0 else { throw SystemError("mkfifo") }
        },
        HostileJournal("a symlink to a file outside", reason: "openat") { root, staging in
            symlink(root + "/../../sentinel/file", staging + "/" + DeviceLayout.restoreJournal)
        },
        HostileJournal("an entry neither moved nor staged", reason: "neither in ROOT nor") { _, staging in
            let line = "\(HostileJournal.hex("Gone")) 1 2 3 4 - - -\n"
            try HostileJournal.write(StagingJournal.header + "\n" + line, in: staging)
        },
        HostileJournal("a moved entry whose original is gone", reason: "is gone from") { root, staging in
            let line = "\(HostileJournal.hex("Library")) \(try HostileJournal.identity(root + "/Library")) 7 1 2\n"
            try HostileJournal.write(StagingJournal.header + "\n" + line, in: staging)
        },
        HostileJournal("a moved entry changed since", reason: "changed after the restore was interrupted") {
            root, staging in
            // ROOT's Library as if the restore had moved it in, then a file made in it after the journal.
            let line = "\(HostileJournal.hex("Library")) \(try HostileJournal.identity(root + "/Library")) - - -\n"
            try HostileJournal.write(StagingJournal.header + "\n" + line, in: staging)
            let journal = staging + "/" + DeviceLayout.restoreJournal
            var written = stat()
            var probe = stat()
            let later = waitUntil(seconds: 5) {
                _ = utimes(staging, nil)
                return lstat(journal, &written) == 0 && lstat(staging, &probe) == 0
                    && StagingJournal.isLater(probe.st_ctim, than: written.st_ctim)
            }
            guard later else { throw SystemError("utimes", path: staging, code: ETIME) }
            try Data("mine\n".utf8).write(to: URL(fileURLWithPath: root + "/Library/SpringBoard/mine.txt"))
        },
    ]

    @Test(arguments: cases)
    func aHostileJournalIsRefusedAndChangesNothing(_ hostile: HostileJournal) throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            try scratch.write(RestoreRootTests.archive)
            let staging = scratch.root + "/.devicectl-restore-1-killed"
            try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false)
            try hostile.plant(scratch.root, staging)
            #expect(throws: DeviceError.interruptedRestore(root: scratch.root)) { try Device.open(scratch.root) }
            let before = try scratch.snapshot()
            var thrown: (any Error)?
            do { try scratch.restore() } catch { thrown = error }
            let message = thrown.map { "\($0)" } ?? "no error"
            #expect(message.contains(hostile.reason), "\(message)")
            if case .cannotRollBack = thrown as? RestoreError {
                #expect(message.contains("nothing was changed"))
            }
            let after = try scratch.snapshot()
            #expect(after == before, "\(snapshotDifference(before, after))")
        }
    }

    @Test func aJournalRoundTripsThroughItsText() throws {
        let entries = [
            StagingJournal.Entry(
                name: Array("Library".utf8), staged: .init(device: 1, inode: 2),
                stagedMtime: timespec(tv_sec: 3, tv_nsec: 4), original: (5, timespec(tv_sec: 6, tv_nsec: 7))),
            StagingJournal.Entry(
                name: [0xff, 0x20, 0x41], staged: .init(device: 8, inode: 9),
                stagedMtime: timespec(tv_sec: -10, tv_nsec: 11), original: nil),
        ]
        let parsed = try StagingJournal.parse(Array(StagingJournal.text(entries).utf8))
        #expect(parsed.map(\.name) == entries.map(\.name))
        #expect(parsed.map(\.staged) == entries.map(\.staged))
        #expect(parsed.map(\.stagedMtime.tv_sec) == [3, -10])
        #expect(parsed.map { $0.original?.inode } == [5, nil])
        #expect(parsed.map { $0.original?.mtime.tv_nsec } == [7, nil])
    }

    /// A live restore's staging directory (its flock held) is neither refused by commands nor removed.
    @Test func aLiveRestoresJournalIsLeftAlone() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            let staging = scratch.root + "/.devicectl-restore-1-live"
            try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: false)
            try HostileJournal.write(StagingJournal.header + "\n", in: staging)
            let held = open(staging, O_RDONLY | O_DIRECTORY)
            defer { close(held) }
            #expect(flock(held, LOCK_EX | LOCK_NB) == 0)
            _ = try Device.open(scratch.root)
            try scratch.write(RestoreRootTests.archive)
            try scratch.restore()
            #expect(FileManager.default.fileExists(atPath: staging + "/" + DeviceLayout.restoreJournal))
        }
    }
}
