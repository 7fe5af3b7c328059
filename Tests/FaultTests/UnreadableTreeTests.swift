// UnreadableTreeTests: what a backup cannot read fails it, naming the path, with nothing written: a directory
// that cannot be listed or entered (as nobody), a file or directory deep inside a device root, and a file
// that shrinks while it is read (growing, rewritten and vanishing files are covered in BackupKitTests and
// EndToEndTests; an unreadable file at the top in BackupAtomicEndToEndTests).
import Foundation
import Glibc
import TestSupport
import Testing

@Suite struct UnreadableTreeTests {
    static let asNobody = ["--reuid=nobody", "--regid=nogroup", "--clear-groups"]

    /// Runs `devicectl backup ROOT -o OUT` as nobody.
    static func backupAsNobody(_ root: String, _ output: String) throws -> RunResult {
        try Shell.run("setpriv", asNobody + [DevicectlBinary.path, "backup", root, "-o", output])
    }

    /// A world-readable tree under `base` (mode 755 all the way) and an output directory nobody can write.
    static func prepare(_ base: String) throws -> (tree: String, out: String) {
        let tree = try PhoneScratch.fill(base + "/tree", files: 30, size: 2048)
        let out = base + "/out"
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let made = try Shell.run(
            "/bin/sh", ["-c", "chmod -R a+rX \"$1\" && chmod 755 \"$1\" && chown nobody \"$2\"", "sh", base, out])
        try #require(made.status == 0, "\(made.stderr)")
        return (tree, out)
    }

    /// No permission at all, search without read (cannot be listed), read without search (cannot be entered).
    @Test(arguments: ["000", "311", "644"])
    func anUnreadableDirectoryFailsTheBackupNamingIt(_ mode: String) throws {
        try PhoneScratch.withFaults { scratch in
            let (tree, out) = try Self.prepare(scratch.dir)
            chmod(tree + "/d3", mode_t(mode, radix: 8)!)
            defer { chmod(tree + "/d3", 0o755) }
            let result = try Self.backupAsNobody(tree, out + "/b.tar")
            PhoneScratch.expectCleanFailure(
                result, mentioning: ["\(tree)/d3", "permission denied", "the backup was not written"])
            #expect(try directoryNames(in: out) == [])
        }
    }

    @Test func anUnreadableFileDeepInADeviceFailsTheBackupNamingIt() throws {
        try PhoneScratch.withFaults { scratch in
            let phone = try scratch.phone(files: 20, size: 1024)
            let (_, out) = try Self.prepare(scratch.dir)
            let secret = try PhoneScratch.dataContainer(phone) + "/Documents/d4/f14"
            chmod(secret, 0o600)
            let result = try Self.backupAsNobody(phone, out + "/b.tar")
            PhoneScratch.expectCleanFailure(result, mentioning: ["cannot read \(secret)", "permission denied"])
            #expect(try directoryNames(in: out) == [])
        }
    }

    @Test func aFileShrinkingWhileReadFailsTheBackupNamingIt() throws {
        try PhoneScratch.withFaults { scratch in
            let tree = scratch.dir + "/tree"
            try PhoneScratch.fill(tree, files: 1, size: 64 << 20)
            let file = tree + "/d0/f0"
            let out = scratch.dir + "/out"
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            let backup = try ChildProcess.devicectl(["backup", tree, "-o", out + "/b.tar"])
            // Cut the file once the backup has started writing it.
            #expect(
                backup.wait(upTo: 10) {
                    var status = stat()
                    return stat("\(out)/.b.tar.devicectl-tmp-\(backup.pid)", &status) == 0 && status.st_size > 1 << 20
                })
            truncate(file, 4 << 20)
            #expect(backup.finish())
            #expect(backup.status == 1, "\(backup.stderr)")
            #expect(backup.stderr.contains("devicectl: \(file) changed while it was being read"), "\(backup.stderr)")
            #expect(try directoryNames(in: out) == [])
        }
    }
}
