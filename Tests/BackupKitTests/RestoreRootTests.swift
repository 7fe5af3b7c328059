// RestoreRootTests: which destinations a restore accepts, what it does to them, and clean-up after failures.
@testable import BackupKit
import DeviceKit
import Foundation
import SystemKit
import TestSupport
import Testing

@Suite struct RestoreRootTests {
    static let archive = TarBuilder.archive([.directory("Documents"), .file("Documents/a", Array("a".utf8))])

    @Test func absentRootIsInitialisedWithItsOwnIdentity() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base, device: false)
            try scratch.write(Self.archive)
            let report = try scratch.restore()
            #expect(report.initialized)
            #expect(Device.isDevice(at: scratch.root))
            #expect(try Device.open(scratch.root).identity().udid != "SOURCE-UDID")
            #expect(report.sourceUDID == "SOURCE-UDID")
            #expect(FileManager.default.fileExists(atPath: scratch.root + "/Documents/a"))
        }
    }

    @Test func emptyDirectoryIsInitialised() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base, device: false)
            try FileManager.default.createDirectory(atPath: scratch.root, withIntermediateDirectories: true)
            try scratch.write(Self.archive)
            #expect(try scratch.restore().initialized)
            #expect(Device.isDevice(at: scratch.root))
        }
    }

    @Test func failedRestoreOntoAbsentRootLeavesNothing() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base, device: false)
            let before = try scratch.snapshot()
            try scratch.write(
                TarBuilder.raw {
                    $0.raw("ok", data: [1])
                    $0.raw("../bad", data: [1])
                })
            #expect(throws: RestoreError.self) { try scratch.restore() }
            #expect(try scratch.snapshot() == before)
            try FileManager.default.createDirectory(atPath: scratch.root, withIntermediateDirectories: true)
            let emptyBefore = try scratch.snapshot()
            #expect(throws: RestoreError.self) { try scratch.restore() }
            #expect(try scratch.snapshot() == emptyBefore)
        }
    }

    @Test func deviceWithAnAppIsRefusedUntouched() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            try Device.open(scratch.root).install(AppInstallation(bundleId: "com.example.news"))
            try scratch.write(Self.archive)
            let before = try scratch.snapshot()
            #expect(throws: RestoreError.rootNotFresh(scratch.root)) { try scratch.restore() }
            #expect(try scratch.snapshot() == before)
        }
    }

    @Test func deviceWithUserDataOrAPlantedSymlinkIsRefused() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            try scratch.write(Self.archive)
            symlink(scratch.sentinel, scratch.root + "/Library/planted")
            let before = try scratch.snapshot()
            #expect(throws: RestoreError.rootNotFresh(scratch.root)) { try scratch.restore() }
            #expect(try scratch.snapshot() == before)
        }
    }

    @Test func nonEmptyDirectoryAndFileAreRefused() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base, device: false)
            try scratch.write(Self.archive)
            try FileManager.default.createDirectory(atPath: scratch.root, withIntermediateDirectories: true)
            try Data("mine".utf8).write(to: URL(fileURLWithPath: scratch.root + "/precious"))
            let before = try scratch.snapshot()
            #expect(throws: RestoreError.rootNotFresh(scratch.root)) { try scratch.restore() }
            #expect(try scratch.snapshot() == before)
            let file = base + "/outer/file"
            try Data("x".utf8).write(to: URL(fileURLWithPath: file))
            #expect(throws: RestoreError.rootNotDirectory(file)) {
                try ArchiveRestore.restore(archive: scratch.archive, root: file)
            }
            // A new ROOT needs its parent directory: said as such (it was "could not use its working files").
            let orphan = base + "/missing/deeper/root"
            #expect(throws: RestoreError.rootParentMissing(root: orphan, parent: base + "/missing/deeper")) {
                try ArchiveRestore.restore(archive: scratch.archive, root: orphan)
            }
            #expect(!FileManager.default.fileExists(atPath: base + "/missing"))
        }
    }

    @Test func staleStagingFromAKilledRunIsRemoved() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            // A pid that cannot be running: above the kernel's pid_max.
            let stale = scratch.root + "/.devicectl-restore-99999999-dead"
            try FileManager.default.createDirectory(
                atPath: stale + "/Documents/deep", withIntermediateDirectories: true)
            try Data("partial".utf8).write(to: URL(fileURLWithPath: stale + "/Documents/deep/file"))
            chmod(stale + "/Documents/deep", 0o500)
            // One of a live restore (here: this test holds its flock, as a restore does) is left alone.
            let live = scratch.root + "/.devicectl-restore-\(getpid())-live"
            try FileManager.default.createDirectory(atPath: live, withIntermediateDirectories: true)
            let held = open(live, O_RDONLY | O_DIRECTORY)
            defer { close(held) }
            #expect(flock(held, LOCK_EX | LOCK_NB) == 0)
            #expect(try Device.open(scratch.root).isFresh())
            try scratch.write(Self.archive)
            let report = try scratch.restore()
            #expect(!FileManager.default.fileExists(atPath: stale))
            #expect(FileManager.default.fileExists(atPath: live))
            #expect(report.warnings.contains { $0.contains(".devicectl-restore-99999999-dead") })
        }
    }

    /// Onto an absent ROOT the device is built in a sibling and renamed onto ROOT: the siblings killed restores
    /// left (nobody holds their flock) are removed first, a live restore's is left alone.
    @Test func staleSiblingsOfAnAbsentRootAreRemoved() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base, device: false)
            let stale = base + "/outer/.root.devicectl-new-dead"
            try FileManager.default.createDirectory(atPath: stale + "/DeviceLocal", withIntermediateDirectories: true)
            try Data("partial".utf8).write(to: URL(fileURLWithPath: stale + "/DeviceLocal/identity.plist"))
            let live = base + "/outer/.root.devicectl-new-live"
            try FileManager.default.createDirectory(atPath: live, withIntermediateDirectories: true)
            let held = open(live, O_RDONLY | O_DIRECTORY)
            defer { close(held) }
            #expect(flock(held, LOCK_EX | LOCK_NB) == 0)
            // Another ROOT's sibling is not this one's to judge.
            let other = base + "/outer/.rootless.devicectl-new-dead"
            try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
            try scratch.write(Self.archive)
            #expect(try scratch.restore().initialized)
            #expect(try FileManager.default.contentsOfDirectory(atPath: base + "/outer").sorted() == [
                ".root.devicectl-new-live", ".rootless.devicectl-new-dead", "root",
            ])
            #expect(try FileStatus.of(scratch.root).permissions == 0o755 & ~RestoreSession.currentUmask())
        }
    }

    @Test func interruptionUndoesEverything() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            let members: [TestMember] = (0..<50).map { .file("f\($0)", [UInt8](repeating: 1, count: 3000)) }
            try scratch.write(TarBuilder.archive(members))
            let before = try scratch.snapshot()
            let polls = Counter()
            var thrown: (any Error)?
            do {
                try scratch.restore { $0.interruption = { polls.increment() > 60 ? SIGTERM : nil } }
            } catch { thrown = error }
            #expect(thrown as? RestoreError == .interrupted(signal: SIGTERM))
            #expect(try scratch.snapshot() == before)
        }
    }

    @Test func spaceLimitUndoesEverything() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            try scratch.write(
                TarBuilder.archive((0..<10).map { .file("f\($0)", [UInt8](repeating: 2, count: 10_000)) }))
            let before = try scratch.snapshot()
            #expect(throws: RestoreError.self) { try scratch.restore { $0.maxBytes = 55_000 } }
            #expect(try scratch.snapshot() == before)
            #expect(try scratch.restore { $0.maxBytes = 100_000 }.counts.files == 10)
        }
    }
}

/// A thread-safe counter for interruption hooks.
final class Counter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
