// RestoreInterruptionTests: a restore killed or interrupted at any step (while extracting, at each rename that
// moves the staged tree into ROOT) leaves ROOT exactly as before, possibly with a staging directory that the
// next restore removes (rolling back any half-made move first). Steps are hit exactly with strace's fault
// injection (a signal delivered at the n-th call of a system call); real-time kills cover the rest.
import Foundation
import Glibc
import TestSupport
import Testing

@Suite(.serialized) struct RestoreInterruptionTests {
    /// A backup of a device with an app and 300 documents, a damaged copy of it, and a reference restore.
    struct Fixture {
        let scratch: FaultScratch
        let archive: String
        let damaged: String
        let reference: [String: String]

        init(_ scratch: FaultScratch, files: Int = 300) throws {
            self.scratch = scratch
            let phone = try scratch.phone(files: files, size: 8192)
            archive = scratch.base + "/phone.tar"
            try scratch.ok(["backup", phone, "-o", archive])
            damaged = scratch.base + "/damaged.tar"
            let bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
            try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: damaged))
            let restored = try scratch.freshDevice("reference")
            try scratch.ok(["restore", archive, restored])
            reference = try FaultScratch.restoredContent(restored)
        }

        /// After an interrupted restore: a restore of a damaged archive cleans up and changes nothing else
        /// (ROOT equals `before` exactly), then the real restore succeeds as if nothing had happened.
        func expectRecoverable(
            _ root: String, before: [String: String], sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            try scratch.fails(["restore", damaged, root], sourceLocation: sourceLocation)
            let after = try FaultScratch.snapshot(root)
            #expect(after == before, "\(snapshotDifference(before, after))", sourceLocation: sourceLocation)
            try scratch.ok(["restore", archive, root], sourceLocation: sourceLocation)
            let restored = try FaultScratch.restoredContent(root)
            #expect(restored == reference, "\(snapshotDifference(reference, restored))", sourceLocation: sourceLocation)
            #expect(
                try !FaultScratch.names(in: root).contains { $0.hasPrefix(".devicectl-restore-") },
                sourceLocation: sourceLocation)
        }
    }

    /// Injection points: the first, an early and a late member created, and each of the four renames that move
    /// the staged `Library` and `Containers` into ROOT (a NOREPLACE try, then an exchange, for each).
    static let points: [(String, String)] = [
        ("openat2", "1"), ("openat2", "40"), ("openat2", "250"),
        ("renameat2", "1"), ("renameat2", "2"), ("renameat2", "3"), ("renameat2", "4"),
    ]

    @Test func sigkillAtEveryStepIsRecoverable() throws {
        try FaultScratch.with { scratch in
            let fixture = try Fixture(scratch)
            for (index, (syscall, when)) in Self.points.enumerated() {
                let root = try scratch.freshDevice("target\(index)")
                let before = try FaultScratch.snapshot(root)
                let killed = try scratch.runInjecting(
                    syscall, "signal=KILL", when: when, ["restore", fixture.archive, root])
                #expect(
                    killed.status == SIGKILL || killed.status == 128 + SIGKILL, "\(syscall)#\(when): \(killed.stderr)")
                try fixture.expectRecoverable(root, before: before)
            }
        }
    }

    /// A killed restore's staging directory is devicectl's own state, not the device's: a backup before the next
    /// restore skips it with a warning (restore refuses the reserved name, so archiving it made the whole backup
    /// unrestorable), and that backup restores.
    @Test func aBackupSkipsAKilledRestoresStagingDirectory() throws {
        try FaultScratch.with { scratch in
            let fixture = try Fixture(scratch, files: 60)
            let root = try scratch.freshDevice("target")
            // Past the ~30 openat2 calls that open and validate the device: the 60th creates a staged file.
            _ = try scratch.runInjecting("openat2", "signal=KILL", when: "60", ["restore", fixture.archive, root])
            let staging = try #require(try FaultScratch.names(in: root).first { $0.hasPrefix(".devicectl-restore-") })
            let backup = try scratch.ok(["backup", root, "-o", scratch.base + "/again.tar"])
            #expect(
                backup.stderr.contains("skipping \(root)/\(staging): a restore's staging directory"), "\(backup.stderr)"
            )
            try scratch.ok(["restore", scratch.base + "/again.tar", scratch.base + "/elsewhere"])
        }
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalAtEveryStepUndoesOrCompletes(_ signal: Int32) throws {
        try FaultScratch.with { scratch in
            let fixture = try Fixture(scratch)
            let name = signal == SIGINT ? "INT" : "TERM"
            for (index, (syscall, when)) in Self.points.enumerated() {
                let root = try scratch.freshDevice("target\(index)")
                let before = try FaultScratch.snapshot(root)
                let result = try scratch.runInjecting(
                    syscall, "signal=\(name)", when: when, ["restore", fixture.archive, root])
                if result.status == 0 {
                    // The signal came after the point of no return (the moves): the restore completed.
                    #expect(try FaultScratch.restoredContent(root) == fixture.reference, "\(syscall)#\(when)")
                } else {
                    FaultScratch.expectCleanFailure(result, mentioning: ["interrupted by SIG\(name)"])
                    let after = try FaultScratch.snapshot(root)
                    #expect(after == before, "\(syscall)#\(when): \(snapshotDifference(before, after))")
                }
            }
        }
    }

    @Test func realTimeKillsAtRandomMomentsAreRecoverable() throws {
        try FaultScratch.with { scratch in
            let fixture = try Fixture(scratch, files: 1000)
            var rng = SeededGenerator(seed: 7)
            var interrupted = 0
            for round in 0..<4 {
                let root = try scratch.freshDevice("target\(round)")
                let before = try FaultScratch.snapshot(root)
                let child = try ChildProcess.devicectl(["restore", fixture.archive, root])
                child.wait(upTo: 10) {
                    (try? FaultScratch.names(in: root).contains { $0.hasPrefix(".devicectl-restore-") }) == true
                }
                usleep(UInt32.random(in: 0...100_000, using: &rng))
                let signal = round % 2 == 0 ? SIGKILL : SIGINT
                child.signal(signal)
                if child.status == 0 && child.killedBy == nil {
                    #expect(try FaultScratch.restoredContent(root) == fixture.reference)  // finished first
                    continue
                }
                interrupted += 1
                if signal == SIGINT {
                    #expect(child.stderr.contains("interrupted by SIGINT"), "\(child.stderr)")
                    #expect(try FaultScratch.snapshot(root) == before)
                }
                try fixture.expectRecoverable(root, before: before)
            }
            #expect(interrupted > 0, "every restore finished before its signal")
        }
    }
}
