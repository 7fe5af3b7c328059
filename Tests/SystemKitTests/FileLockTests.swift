// FileLockTests: the probe for a live owner sees another open file's lock, and leaves none of its own behind, even
// in a copy of the descriptor that a child forked meanwhile would hold until its exec.
import Glibc
import SystemKit
import TestSupport
import Testing

@Suite struct FileLockTests {
    /// A new open file (its own open file description) of the directory `path`.
    static func open(_ path: String) throws -> FileDescriptor {
        let raw = try SystemError.check("open", path: path) { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        return FileDescriptor(rawValue: raw, path: path)
    }

    @Test func aLockHeldByAnotherOpenFileIsSeen() throws {
        try withTemporaryDirectory { path in
            let owner = try Self.open(path)
            try SystemError.check("flock", path: path) { flock(owner.rawValue, LOCK_EX | LOCK_NB) }
            let prober = try Self.open(path)
            let whileOwned = FileLock.isHeld(prober)
            #expect(whileOwned)
            try owner.close()
            let afterwards = FileLock.isHeld(prober)
            #expect(!afterwards)
        }
    }

    /// The CI failure this pins: a test's probe of a killed restore's staging directory, while another test forked
    /// a child, left the directory locked through the child's copy, and the restore that should have rolled the
    /// journal back took the staging directory for a live restore's.
    @Test func theProbeLeavesNoLockInACopyOfItsDescriptor() throws {
        try withTemporaryDirectory { path in
            let prober = try Self.open(path)
            // What a child forked between the probe's lock and its close holds: the same open file.
            let copy = try SystemError.check("dup", path: path) { fcntl(prober.rawValue, F_DUPFD_CLOEXEC, 0) }
            defer { _ = Glibc.close(copy) }
            let held = FileLock.isHeld(prober)
            #expect(!held)
            try prober.close()
            let recovery = try Self.open(path)
            #expect(flock(recovery.rawValue, LOCK_EX | LOCK_NB) == 0, "errno \(errno)")
        }
    }

    /// A released lock (or one whose owner is gone) is free at once, though a forked child's copy of its descriptor
    /// is still open.
    @Test(arguments: [true, false])
    func aReleasedLockIsFreeThoughACopyOfItsDescriptorLives(explicitly: Bool) throws {
        try withTemporaryDirectory { path in
            var copy: Int32 = -1
            defer { if copy >= 0 { _ = Glibc.close(copy) } }
            do {
                let file = try Self.open(path)
                // A copy of the same open file, as a child forked while the lock is held would have.
                let raw = file.rawValue
                copy = try SystemError.check("dup", path: path) { fcntl(raw, F_DUPFD_CLOEXEC, 0) }
                let lock = try FileLock(file: file, wait: false)
                if explicitly { try lock.release() }
            }
            let next = try Self.open(path)
            #expect(flock(next.rawValue, LOCK_EX | LOCK_NB) == 0, "errno \(errno)")
        }
    }
}
