// MobileSyncInterruptionTests: a MobileSync backup interrupted (SIGINT, SIGTERM) or killed (SIGKILL) at a fixed
// step never leaves anything at DIR but the previous backup, whole; an interruption removes its temporary
// directory and exits 128 + the signal; a kill's leftover is hidden and the next backup removes it.
import Foundation
import Glibc
import TestSupport
import Testing

@Suite(.serialized) struct MobileSyncInterruptionTests {
    /// A phone with 60 documents (many fileID prefixes) and a previous backup of it at `out/backup`.
    struct Fixture {
        let scratch: PhoneScratch
        let root: String
        let out: String
        var backup: String { out + "/backup" }
        let previous: [String: String]

        init(_ scratch: PhoneScratch) throws {
            self.scratch = scratch
            root = try scratch.phone(files: 60)
            out = scratch.dir + "/out"
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            try scratch.ok(["backup", root, "--format", "mobilesync", "-o", out + "/backup"])
            previous = try TreeSnapshot.take(out + "/backup")
            try PhoneScratch.fill(try PhoneScratch.dataContainer(root) + "/Documents/more", files: 40, size: 8192)
        }

        func expectPreviousBackupIntact(sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(try TreeSnapshot.take(backup) == previous, sourceLocation: sourceLocation)
        }
    }

    /// The formatting thread makes the content directories (`mkdirat`, one per fileID prefix); the signal arrives
    /// at its third, with most members still to come. The main thread makes one (the temporary directory).
    @Test(arguments: [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")])
    func aSignalRemovesTheTemporaryDirectoryAndKeepsThePreviousBackup(_ signal: Int32, _ name: String) throws {
        try PhoneScratch.withFaults { scratch in
            let fixture = try Fixture(scratch)
            let result = try scratch.runInjecting(
                "mkdirat", "signal=\(name.dropFirst(3))", when: "3",
                ["backup", fixture.root, "--format", "mobilesync", "-o", fixture.backup])
            #expect(result.status == 128 + signal, "exit \(result.status): \(result.stderr)")
            #expect(result.stderr == "devicectl: interrupted by \(name); the backup did not complete\n", "\(result.stderr)")
            try fixture.expectPreviousBackupIntact()
            #expect(try directoryNames(in: fixture.out) == ["backup"])
        }
    }

    @Test func killedAtTheRenameThePreviousBackupStaysAndTheLeftoverIsHiddenThenRemoved() throws {
        try PhoneScratch.withFaults { scratch in
            let fixture = try Fixture(scratch)
            let killed = try scratch.runInjecting(
                "renameat2", "signal=KILL", when: "1",
                ["backup", fixture.root, "--format", "mobilesync", "-o", fixture.backup])
            #expect(killed.status == SIGKILL || killed.status == 128 + SIGKILL, "\(killed.stderr)")
            try fixture.expectPreviousBackupIntact()
            let names = try directoryNames(in: fixture.out)
            #expect(names.count == 2 && names.contains { $0.hasPrefix(".backup.devicectl-tmp-") }, "\(names)")
            try scratch.ok(["backup", fixture.root, "--format", "mobilesync", "-o", fixture.backup])
            #expect(try directoryNames(in: fixture.out) == ["backup"])
        }
    }

    /// A full disk while a content file is written (strace counts each thread's calls: a content-file thread's 20th
    /// `write` fails with ENOSPC): the backup fails naming the cause and the content file (`<backup>/xx/<fileID>`),
    /// and only the previous backup is left. Plain and encrypted (an encrypted file's ciphertext and last block go
    /// out in one `write`).
    @Test(arguments: [false, true]) func aFullDiskFailsTheBackupAndKeepsThePreviousOne(_ encrypted: Bool) throws {
        try PhoneScratch.withFaults { scratch in
            let fixture = try Fixture(scratch)
            let password = scratch.dir + "/password"
            try "secret\n".write(toFile: password, atomically: true, encoding: .utf8)
            let encryption = ["--encrypt", "--password-file", password, "--kdf-iterations", "10,10"]
            let result = try scratch.runInjecting(
                "write", "error=ENOSPC", when: "20", path: nil,
                ["backup", fixture.root, "--format", "mobilesync", "-o", fixture.backup] + (encrypted ? encryption : []))
            // Said as every failed call is said to a user: the file, the step and the cause, no call's name.
            PhoneScratch.expectCleanFailure(result, mentioning: [": cannot write it: no space left on device"])
            #expect(!result.stderr.contains("write("), "\(result.stderr)")
            let named = try #require(result.stderr.firstRange(of: "devicectl: \(fixture.backup)/"), "\(result.stderr)")
            let file = result.stderr[named.upperBound...].prefix { $0 != ":" }.split(separator: "/")
            #expect(
                file.count == 2 && file[1].count == 40 && file[1].hasPrefix(file[0])
                    && file[1].allSatisfy(\.isHexDigit),
                "\(result.stderr)")
            try fixture.expectPreviousBackupIntact()
            #expect(try directoryNames(in: fixture.out) == ["backup"])
        }
    }

    /// An encrypted MobileSync backup of `root` (low key-derivation counts) at `encrypted`, its password file, and an
    /// empty directory to be TMPDIR.
    static func encryptedBackup(of root: String, in scratch: PhoneScratch) throws
        -> (backup: String, password: String, temporary: String)
    {
        let backup = scratch.dir + "/encrypted", password = scratch.dir + "/password"
        try "secret\n".write(toFile: password, atomically: true, encoding: .utf8)
        try scratch.ok([
            "backup", root, "--format", "mobilesync", "--encrypt", "--password-file", password,
            "--kdf-iterations", "10,10", "-o", backup,
        ])
        let temporary = scratch.dir + "/tmp"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        return (backup, password, temporary)
    }

    /// An encrypted MobileSync restore killed (SIGKILL) or interrupted (SIGINT) while it stages files (at the
    /// main thread's openat2 two thirds of the way through its run: content files and staged files are opened
    /// with it) leaves ROOT as it was, so the next restore succeeds, and nothing in TMPDIR: the decrypted
    /// Manifest.db never has a name.
    @Test func anEncryptedRestoreKilledOrInterruptedLeavesNothingBehind() throws {
        try PhoneScratch.withFaults { scratch in
            let root = try scratch.phone(files: 60)
            let (backup, password, temporary) = try Self.encryptedBackup(of: root, in: scratch)
            let counting = try scratch.freshDevice("counting")
            let (counted, calls) = try scratch.countMainThreadCalls(
                ["openat2"], ["restore", backup, counting, "--password-file", password])
            #expect(counted.status == 0, "\(counted.stderr)")
            let total = try #require(calls["openat2"])
            for (index, signal) in [SIGKILL, SIGINT].enumerated() {
                let target = try scratch.freshDevice("target\(index)")
                let before = try TreeSnapshot.take(target)
                let result = try scratch.runInjecting(
                    "openat2", "signal=\(signal == SIGKILL ? "KILL" : "INT")", when: "\(total * 2 / 3)",
                    ["restore", backup, target, "--password-file", password], environment: ["TMPDIR": temporary])
                if signal == SIGKILL {
                    #expect(result.status == SIGKILL || result.status == 128 + SIGKILL, "\(result.stderr)")
                } else {
                    #expect(result.status == 128 + SIGINT, "\(result.stderr)")
                    #expect(result.stderr.contains("interrupted by SIGINT"), "\(result.stderr)")
                    #expect(try TreeSnapshot.take(target) == before)
                }
                #expect(try directoryNames(in: temporary) == [])
                try scratch.ok(["restore", backup, target, "--password-file", password])
                #expect(FileManager.default.fileExists(atPath: target + "/Library/SpringBoard/IconState.plist"))
            }
        }
    }

    /// An encrypted backup of 8,000 files: Manifest.db's rows sorted for reading outgrow SQLite's cache, so its sorter
    /// spills to temporary files. Restore and verify read it, and every file they open in TMPDIR is unnamed
    /// (`O_TMPFILE`: the decrypted index, then the spills): traced, no name is ever created there.
    @Test func aSpillingReadOfAnEncryptedBackupNamesNothingInTMPDIR() throws {
        try PhoneScratch.withFaults { scratch in
            let root = try scratch.phone(files: 8000, size: 16)
            let (backup, password, temporary) = try Self.encryptedBackup(of: root, in: scratch)
            for command in [["verify", backup], ["restore", backup, scratch.dir + "/new"]] {
                let log = scratch.dir + "/trace.log"
                let traced = try Shell.run(
                    "strace", ["-f", "-qq", "-o", log, "-e", "trace=openat,open,creat,mkdir,mkdirat,link,linkat,symlinkat",
                               DevicectlBinary.path] + command + ["--password-file", password],
                    environment: PhoneScratch.injectedEnvironment.merging(["TMPDIR": temporary]) { $1 })
                #expect(traced.status == 0, "\(command): \(traced.stderr)")
                let calls = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
                    .filter { $0.contains(temporary) }
                let unnamed = calls.filter { $0.contains("O_TMPFILE") }
                #expect(unnamed.count >= 2, "\(command): the decrypted index and at least one spill: \(calls)")
                #expect(calls.count == unnamed.count, "\(command): a name made in TMPDIR: \(calls)")
                #expect(try directoryNames(in: temporary) == [])
                unlink(log)
            }
            #expect(try PhoneScratch.dataContainer(scratch.dir + "/new").isEmpty == false)
        }
    }
}
