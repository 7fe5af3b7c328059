// RestoreInterruptionTests: a restore killed or interrupted at any step (while extracting, at each rename that
// moves the staged tree into ROOT) leaves ROOT exactly as before, possibly with a staging directory that the
// next restore removes (rolling back any half-made move first, and only when nothing changed since). Steps are
// hit exactly with strace's fault injection (a signal delivered at the n-th call of a system call, the threads
// pinned so that the n-th call is the same step on every run); seeded kills over a run's calls cover the rest.
import DeviceKit
import Foundation
import Glibc
import TestSupport
import Testing

@Suite(.serialized) struct RestoreInterruptionTests {
    /// A backup of a device with an app and 300 documents, a damaged copy of it, and a reference restore.
    struct Fixture {
        let scratch: PhoneScratch
        let archive: String
        let damaged: String
        let reference: [String: String]

        init(_ scratch: PhoneScratch, files: Int = 300) throws {
            self.scratch = scratch
            let phone = try scratch.phone(files: files, size: 8192)
            archive = scratch.dir + "/phone.tar"
            try scratch.ok(["backup", phone, "-o", archive])
            damaged = scratch.dir + "/damaged.tar"
            let bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
            try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: damaged))
            let restored = try scratch.freshDevice("reference")
            try scratch.ok(["restore", archive, restored])
            reference = try PhoneScratch.restoredContent(restored)
        }

        /// After an interrupted restore: a restore of a damaged archive cleans up and changes nothing else
        /// (ROOT equals `before` exactly), then the real restore succeeds as if nothing had happened.
        func expectRecoverable(
            _ root: String, before: [String: String], sourceLocation: SourceLocation = #_sourceLocation
        ) throws {
            try scratch.fails(["restore", damaged, root], sourceLocation: sourceLocation)
            let after = try TreeSnapshot.take(root)
            #expect(after == before, "\(snapshotDifference(before, after))", sourceLocation: sourceLocation)
            try scratch.ok(["restore", archive, root], sourceLocation: sourceLocation)
            let restored = try PhoneScratch.restoredContent(root)
            #expect(restored == reference, "\(snapshotDifference(reference, restored))", sourceLocation: sourceLocation)
            #expect(
                try !directoryNames(in: root).contains { $0.hasPrefix(".devicectl-restore-") },
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
        try PhoneScratch.withFaults { scratch in
            let fixture = try Fixture(scratch)
            for (index, (syscall, when)) in Self.points.enumerated() {
                let root = try scratch.freshDevice("target\(index)")
                let before = try TreeSnapshot.take(root)
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
        try PhoneScratch.withFaults { scratch in
            let fixture = try Fixture(scratch, files: 60)
            let root = try scratch.freshDevice("target")
            // Past the ~30 openat2 calls that open and validate the device: the 60th creates a staged file.
            _ = try scratch.runInjecting("openat2", "signal=KILL", when: "60", ["restore", fixture.archive, root])
            let staging = try #require(try directoryNames(in: root).first { $0.hasPrefix(".devicectl-restore-") })
            let backup = try scratch.ok(["backup", root, "-o", scratch.dir + "/again.tar"])
            #expect(
                backup.stderr.contains("skipping \(root)/\(staging): a restore's staging directory"), "\(backup.stderr)"
            )
            try scratch.ok(["restore", scratch.dir + "/again.tar", scratch.dir + "/elsewhere"])
        }
    }

    /// SIGINT, SIGTERM or SIGHUP (a closed terminal) at each step: extracting, and at each rename that moves the
    /// staged tree in (the restore looks for a signal after every move and rolls the moves back), is a clean
    /// "interrupted" failure with ROOT exactly as before. Exit 0 fails the test: the signal must have arrived and been
    /// acted on.
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func aSignalAtEveryStepUndoesTheRestore(_ signal: Int32) throws {
        try PhoneScratch.withFaults { scratch in
            let fixture = try Fixture(scratch)
            let name = signal == SIGINT ? "INT" : signal == SIGTERM ? "TERM" : "HUP"
            for (index, (syscall, when)) in Self.points.enumerated() {
                let root = try scratch.freshDevice("target\(index)")
                let before = try TreeSnapshot.take(root)
                let result = try scratch.runInjecting(
                    syscall, "signal=\(name)", when: when, ["restore", fixture.archive, root])
                PhoneScratch.expectCleanFailure(result, status: 128 + signal, mentioning: ["interrupted by SIG\(name)"])
                let after = try TreeSnapshot.take(root)
                #expect(after == before, "\(syscall)#\(when): \(snapshotDifference(before, after))")
            }
        }
    }

    /// SIGINT while a restore from stdin waits in poll(2) for input that does not come (a FIFO kept open): it stops
    /// at once, interrupted, ROOT unchanged. A signal handled during that poll used to fall through to a read(2)
    /// that blocked until the writer went away (a hang under a test that closes its pipe only after the exit).
    @Test func aSignalWhileWaitingForInputStopsTheRestore() throws {
        try PhoneScratch.withFaults { scratch in
            let root = try scratch.freshDevice("target")
            let before = try TreeSnapshot.take(root)
            let fifo = scratch.dir + "/input"
            try #require(mkfifo(fifo, 0o600) == 0)
            var writer = open(fifo, O_RDWR)  // a writer that never writes: the pipe stays open and empty
            defer { if writer >= 0 { close(writer) } }
            let options = ["-f", "-qq", "-o", "/dev/null", "-e", "trace=poll", "-e", "inject=poll:signal=INT:when=1"]
            let child = try ChildProcess(
                "strace", options + [DevicectlBinary.path, "restore", "-", root],
                environment: PhoneScratch.injectedEnvironment, stdin: fifo)
            let stopped = child.wait(upTo: 20) { !child.isRunning }
            // Failing, it would wait for input for ever: end the input so that it exits (it then says why).
            close(writer)
            writer = -1
            #expect(child.finish(within: 20))
            #expect(stopped, "the restore did not stop at SIGINT")
            #expect(child.status == 128 + SIGINT, "\(child.stderr)")
            #expect(child.stderr.contains("interrupted by SIGINT"), "\(child.stderr)")
            let after = try TreeSnapshot.take(root)
            #expect(after == before, "\(snapshotDifference(before, after))")
        }
    }

    /// Killed between its moves, a restore leaves a device that is part restored tree, part fresh skeleton: every
    /// device command refuses it, naming the cure, and changes nothing; the next restore rolls it back.
    @Test func aHalfMovedDeviceIsRefusedByEveryCommandUntilARestoreRollsItBack() throws {
        try PhoneScratch.withFaults { scratch in
            let fixture = try Fixture(scratch, files: 20)
            let root = try scratch.freshDevice("target")
            let before = try TreeSnapshot.take(root)
            let killed = try scratch.runInjecting(
                "renameat2", "signal=KILL", when: "3", ["restore", fixture.archive, root])
            #expect(killed.status == SIGKILL, "\(killed.stderr)")
            try #require(try Self.hasJournal(root), "the kill did not leave a journal")
            let halfMoved = try TreeSnapshot.take(root)
            let app = ["--app", "com.example.news"]
            let commands: [[String]] = [
                ["status", root], ["events", root], ["notifications", root], ["launch", root] + app,
                ["install", root, "--app", "com.example.other"], ["defaults", "read", root, "com.example.news"],
                ["defaults", "write", root, "com.example.news", "k", "-int", "1"], ["widget", "add", root] + app,
                ["widget-refresh", root], ["tap", root, "--notification", "N1"],
                ["backup", root, "-o", scratch.dir + "/b.tar"], ["init", root],
            ]
            for command in commands {
                try scratch.fails(
                    command,
                    mentioning: ["a restore onto \(root) was interrupted", "devicectl restore ARCHIVE \(root)"])
            }
            #expect(access(scratch.dir + "/b.tar", F_OK) != 0)
            let after = try TreeSnapshot.take(root)
            #expect(after == halfMoved, "\(snapshotDifference(halfMoved, after))")
            try fixture.expectRecoverable(root, before: before)
            try scratch.ok(["status", root])
        }
    }

    /// A restore killed after its first move, or after its last move but before it removed its journal (the second
    /// unlinkat of a pinned restore: the first removes the DeviceLocal placeholder the link check used), then
    /// files made or changed on the device: the next restore must not roll back (that would delete them). It
    /// refuses, says which file changed, and changes nothing; removing the staging directory keeps the device.
    @Test(arguments: [("renameat2", "3"), ("unlinkat", "2")])
    func aStaleJournalNeverDeletesWhatWasMadeSince(_ point: (String, String)) throws {
        try PhoneScratch.withFaults { scratch in
            let fixture = try Fixture(scratch, files: 20)
            let root = try scratch.freshDevice("target")
            let killed = try scratch.runInjecting(
                point.0, "signal=KILL", when: point.1, ["restore", fixture.archive, root])
            #expect(killed.status == SIGKILL, "\(killed.stderr)")
            try #require(try Self.hasJournal(root), "the kill did not leave a journal")
            let notes = try Self.addUserData(root)
            let before = try TreeSnapshot.take(root)
            let refused = try scratch.fails(["restore", fixture.archive, root], mentioning: ["cannot be rolled back"])
            #expect(refused.stderr.contains("changed after the restore was interrupted"), "\(refused.stderr)")
            let after = try TreeSnapshot.take(root)
            #expect(after == before, "\(snapshotDifference(before, after))")
            for note in notes { #expect(try String(contentsOfFile: note, encoding: .utf8) == "mine\n") }
            try scratch.fails(["status", root], mentioning: ["was interrupted"])
            // The way out the message gives: remove the staging directory, keep the device as it is.
            let staging = try #require(try directoryNames(in: root).first { $0.hasPrefix(".devicectl-restore-") })
            removeTree(root + "/" + staging)
            try scratch.ok(["status", root])
            for note in notes { #expect(try String(contentsOfFile: note, encoding: .utf8) == "mine\n") }
        }
    }

    /// 50 SIGKILLs at seeded moments of restores onto absent roots, fresh devices and devices a killed restore
    /// left half moved or moved but unconfirmed. Each moment is a (system call, n) drawn from the calls a pinned
    /// run of the same restore makes on its main thread, so every run of the test kills at the same steps. After
    /// each kill ROOT is absent, untouched, complete, or interrupted (a journal: every command refuses it); the
    /// next restore completes it, except that files added to an interrupted device survive (it refuses).
    @Test func fiftySeededKillsLeaveRootAbsentUntouchedOrComplete() throws {
        try PhoneScratch.withFaults { scratch in
            let fixture = try Fixture(scratch, files: 40)
            let kinds = RootKind.allCases
            var profiles: [RootKind: [(String, Int)]] = [:]
            for kind in kinds {
                let (root, _) = try kind.prepare("profile-\(kind)", scratch, fixture)
                let (run, counts) = try scratch.countMainThreadCalls(Self.killable, ["restore", fixture.archive, root])
                #expect(run.status == 0, "\(kind): \(run.stderr)")
                #expect(try PhoneScratch.restoredContent(root) == fixture.reference, "\(kind)")
                profiles[kind] = counts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
                #expect(counts["renameat2", default: 0] >= 4 && counts["openat2", default: 0] >= 40, "\(counts)")
            }
            var rng = SeededGenerator(seed: 13)
            var outcomes: [String: Int] = [:]
            var addData = false
            for index in 0..<50 {
                let kind = kinds[index % kinds.count]
                let (root, fresh) = try kind.prepare("k\(index)", scratch, fixture)
                // A system call, then one of its calls: the few renames of the moves are drawn as often as the
                // hundreds of opens.
                let calls = try #require(profiles[kind])
                try #require(!calls.isEmpty, "\(kind): no calls counted")
                let (syscall, count) = calls[Int(rng.next() % UInt64(calls.count))]
                let when = Int(rng.next() % UInt64(count)) + 1
                let moment = "kill \(index) onto \(kind) root at \(syscall)#\(when)"
                let killed = try scratch.runInjecting(
                    syscall, "signal=KILL", when: String(when), ["restore", fixture.archive, root])
                #expect(killed.status == SIGKILL, "\(moment): not killed (exit \(killed.status)) \(killed.stderr)")
                let outcome = try Self.outcome(root, fresh: fresh, fixture, moment)
                outcomes[outcome, default: 0] += 1
                switch outcome {
                case "complete":
                    try scratch.ok(["status", root])
                    try scratch.fails(["restore", fixture.archive, root], mentioning: ["is not a fresh device"])
                    let content = try PhoneScratch.restoredContent(root)
                    #expect(
                        content == fixture.reference, "\(moment): \(snapshotDifference(fixture.reference, content))")
                    continue
                case "interrupted":
                    try scratch.fails(["status", root], mentioning: ["was interrupted"])
                    addData.toggle()
                    if addData {
                        let notes = try Self.addUserData(root)
                        try scratch.fails(["restore", fixture.archive, root])
                        for note in notes {
                            #expect(try String(contentsOfFile: note, encoding: .utf8) == "mine\n", "\(moment)")
                        }
                        continue
                    }
                default:
                    break
                }
                try scratch.ok(["restore", fixture.archive, root])
                let restored = try PhoneScratch.restoredContent(root)
                #expect(restored == fixture.reference, "\(moment): \(snapshotDifference(fixture.reference, restored))")
                #expect(try directoryNames(in: root).allSatisfy { !$0.hasPrefix(".devicectl-") }, "\(moment)")
                let parent = (root as NSString).deletingLastPathComponent
                #expect(try directoryNames(in: parent) == ["root"], "\(moment)")
            }
            print("seeded kills: \(outcomes.sorted { $0.key < $1.key })")
            // The moments must reach every stage, or the test proves less than it says.
            for outcome in ["absent", "untouched", "complete", "interrupted"] {
                #expect(outcomes[outcome, default: 0] > 0, "no kill left ROOT \(outcome): \(outcomes)")
            }
        }
    }

    /// Calls a kill may come at (all made on the restore's main thread when the threads are pinned). Not `openat`
    /// and `newfstatat`: the dynamic loader makes dozens of them (libraries loaded on first use), on whichever
    /// thread first needs a library, so their count on the main thread changes with the load (seen: a kill at
    /// newfstatat#90 never came under a full parallel suite). devicectl's own opens are `openat2`.
    static let killable = [
        "openat2", "getdents64", "mkdirat", "fchmod", "renameat2", "renameat", "rename",
        "unlinkat", "fsync", "syncfs", "write", "flock",
    ]

    /// What ROOT is after a kill: "absent", "complete" (what a restore makes), "interrupted" (a journal is left:
    /// every command refuses it) or "untouched" (the fresh device it was, a staging directory without a journal
    /// aside, which every command ignores and the next restore removes). Anything else fails the test.
    static func outcome(_ root: String, fresh: [String: String]?, _ fixture: Fixture, _ moment: String) throws
        -> String
    {
        guard access(root, F_OK) == 0 else {
            #expect(fresh == nil, "\(moment): ROOT is gone")
            return "absent"
        }
        if try hasJournal(root) { return "interrupted" }
        // Killed after its last move and the journal's removal, a restore may leave its staging directory (the
        // fresh device's skeleton in it): inert, and removed by the next restore, which refuses the device.
        if try PhoneScratch.restoredContent(root).filter({ !$0.key.hasPrefix(".devicectl-restore-") })
            == fixture.reference
        {
            return "complete"
        }
        let now = try TreeSnapshot.take(root) { $0.hasPrefix(".devicectl-restore-") && !$0.contains("/") }
        #expect(fresh != nil && now == fresh, "\(moment): \(snapshotDifference(fresh ?? [:], now))")
        return "untouched"
    }

    /// Whether a staging directory in `root` holds a restore journal.
    static func hasJournal(_ root: String) throws -> Bool {
        try directoryNames(in: root).contains {
            $0.hasPrefix(".devicectl-restore-") && access("\(root)/\($0)/\(DeviceLayout.restoreJournal)", F_OK) == 0
        }
    }

    /// The user's own files, made after a kill: a note on the home screen's directory and in every app's
    /// Documents. Returns their paths.
    static func addUserData(_ root: String) throws -> [String] {
        var notes = [root + "/Library/SpringBoard/user-note.txt"]
        let data = root + "/Containers/Data/Application"
        let containers = (try? directoryNames(in: data)) ?? []
        for container in containers where access("\(data)/\(container)/Documents", F_OK) == 0 {
            notes.append("\(data)/\(container)/Documents/user-note.txt")
        }
        for note in notes { try Data("mine\n".utf8).write(to: URL(fileURLWithPath: note)) }
        return notes
    }

    /// The roots the kills are tried on, each in a directory of its own (so listing the parent costs the same).
    enum RootKind: CaseIterable, CustomStringConvertible {
        case absent, fresh, halfMoved, movedUnconfirmed

        var description: String {
            switch self {
            case .absent: "absent"
            case .fresh: "fresh"
            case .halfMoved: "half-moved"
            case .movedUnconfirmed: "moved-unconfirmed"
            }
        }

        /// Makes `name/root`; returns it and the fresh device's snapshot (nil when ROOT is absent).
        func prepare(_ name: String, _ scratch: PhoneScratch, _ fixture: Fixture) throws
            -> (String, [String: String]?)
        {
            let parent = scratch.dir + "/" + name
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            let root = parent + "/root"
            guard self != .absent else { return (root, nil) }
            try scratch.ok(["init", root])
            let fresh = try TreeSnapshot.take(root)
            guard self != .fresh else { return (root, fresh) }
            let (syscall, when) = self == .halfMoved ? ("renameat2", "3") : ("unlinkat", "2")
            let killed = try scratch.runInjecting(
                syscall, "signal=KILL", when: when, ["restore", fixture.archive, root])
            #expect(killed.status == SIGKILL, "\(self): \(killed.stderr)")
            try #require(try RestoreInterruptionTests.hasJournal(root), "\(self): no journal")
            return (root, fresh)
        }
    }
}
