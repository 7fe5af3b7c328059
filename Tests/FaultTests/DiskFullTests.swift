// DiskFullTests: no space, a file-size limit or an I/O error while writing, during backup and during restore:
// a clean failure naming the cause, exit 1, no partial archive, ROOT untouched. Faults come from RLIMIT_FSIZE
// (prlimit), a small tmpfs in a private mount namespace, and strace's errno injection at the n-th write.
import Foundation
import Glibc
import TestSupport
import Testing

@Suite(.serialized) struct DiskFullTests {
    // MARK: - Backup

    @Test(arguments: [64 << 10, 4 << 20])
    func aFileSizeLimitFailsTheBackupAndKeepsThePreviousArchive(_ limit: Int) throws {
        try PhoneScratch.withFaults { scratch in
            let tree = try PhoneScratch.fill(scratch.dir + "/tree", files: 100, size: 100 << 10)
            let out = scratch.dir + "/out"
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            try PhoneScratch.fill(out + "/small", files: 1, size: 10)
            try scratch.ok(["backup", out + "/small", "-o", out + "/b.tar"])
            let previous = try Data(contentsOf: URL(fileURLWithPath: out + "/b.tar"))
            let result = try Shell.run(
                "prlimit", ["--fsize=\(limit)", DevicectlBinary.path, "backup", tree, "-o", out + "/b.tar"])
            PhoneScratch.expectCleanFailure(
                result, mentioning: ["cannot write the archive to \(out)/b.tar: file too large"])
            #expect(try Data(contentsOf: URL(fileURLWithPath: out + "/b.tar")) == previous)
            #expect(try directoryNames(in: out) == ["b.tar", "small"])
        }
    }

    @Test(arguments: ["ENOSPC", "EIO", "EDQUOT"])
    func aWriteErrorFailsTheBackupNamingTheArchive(_ error: String) throws {
        try PhoneScratch.withFaults { scratch in
            let tree = try PhoneScratch.fill(scratch.dir + "/tree", files: 100, size: 100 << 10)
            let out = scratch.dir + "/out"
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            let result = try scratch.runInjecting(
                "write", "error=\(error)", when: "5", path: nil, ["backup", tree, "-o", out + "/b.tar"])
            PhoneScratch.expectCleanFailure(
                result, mentioning: ["\(out)/b.tar", Self.phrase(error)])
            #expect(try directoryNames(in: out) == [])
        }
    }

    /// Compressed backups write from the output thread (`StreamCompressor`): the same clean failure. The tree is
    /// random bytes, so the compressed archive still needs several writes (zstd: one a 2 MiB frame, 3 or 4 here).
    @Test(arguments: [("zstd", "ENOSPC"), ("gzip", "EIO"), ("xz", "ENOSPC"), ("zstd", "limit")])
    func aCompressedBackupFailsCleanlyWhenItsWritesFail(_ compression: String, _ fault: String) throws {
        try PhoneScratch.withFaults { scratch in
            let tree = scratch.dir + "/tree"
            let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
            for index in 0..<60 {
                try FileManager.default.createDirectory(atPath: "\(tree)/d\(index % 6)", withIntermediateDirectories: true)
                try random.readData(ofLength: 100 << 10).write(to: URL(fileURLWithPath: "\(tree)/d\(index % 6)/f\(index)"))
            }
            let out = scratch.dir + "/out"
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            let arguments = ["backup", tree, "-o", out + "/b.tar", "--compression", compression]
            if fault == "limit" {
                let result = try Shell.run("prlimit", ["--fsize=\(1 << 20)", DevicectlBinary.path] + arguments)
                PhoneScratch.expectCleanFailure(
                    result, mentioning: ["cannot write the archive to \(out)/b.tar: file too large"])
            } else {
                let result = try scratch.runInjecting("write", "error=\(fault)", when: "2", path: nil, arguments)
                PhoneScratch.expectCleanFailure(
                    result, mentioning: ["\(out)/b.tar", Self.phrase(fault)])
            }
            #expect(try directoryNames(in: out) == [])
        }
    }

    // MARK: - Restore

    /// A backup of a device with 200 documents of 64 KiB (13 MB).
    static func archive(_ scratch: PhoneScratch) throws -> String {
        let phone = try scratch.phone(files: 200, size: 64 << 10)
        let archive = scratch.dir + "/phone.tar"
        try scratch.ok(["backup", phone, "-o", archive])
        return archive
    }

    /// `strerror` of the errno named `name`, as messages say it inside a sentence (`no space left on device`).
    static func phrase(_ name: String) -> String {
        let text = String(cString: strerror(code(name)))
        return (text.first?.lowercased() ?? "") + text.dropFirst()
    }

    @Test func aFileSizeLimitFailsTheRestoreAndChangesNothing() throws {
        try PhoneScratch.withFaults { scratch in
            let archive = try Self.archive(scratch)
            let root = try scratch.freshDevice("target")
            let before = try TreeSnapshot.take(root)
            let result = try Shell.run("prlimit", ["--fsize=32768", DevicectlBinary.path, "restore", archive, root])
            PhoneScratch.expectCleanFailure(result, mentioning: ["file too large", "nothing was restored"])
            #expect(try TreeSnapshot.take(root) == before)
            // Onto a ROOT that does not exist yet: it still does not.
            let absent = scratch.dir + "/absent"
            let parentBefore = try TreeSnapshot.take(scratch.dir + "/sentinel")
            let second = try Shell.run("prlimit", ["--fsize=32768", DevicectlBinary.path, "restore", archive, absent])
            PhoneScratch.expectCleanFailure(second, mentioning: ["file too large"])
            #expect(!FileManager.default.fileExists(atPath: absent))
            #expect(try TreeSnapshot.take(scratch.dir + "/sentinel") == parentBefore)
        }
    }

    @Test(arguments: [
        ("pwrite64", "ENOSPC"), ("pwrite64", "EIO"), ("openat2", "EDQUOT"), ("mkdirat", "ENOSPC"),
        ("renameat2", "EIO"),
    ])
    func aFailingSystemCallFailsTheRestoreAndChangesNothing(_ syscall: String, _ error: String) throws {
        try PhoneScratch.withFaults { scratch in
            let archive = try Self.archive(scratch)
            let root = try scratch.freshDevice("target")
            let before = try TreeSnapshot.take(root)
            // The third rename is the exchange of the second top-level entry: the first is already in ROOT.
            // openat2: past the ~30 calls that open and validate the device before anything is staged.
            let when = syscall == "renameat2" ? "4" : syscall == "openat2" ? "60" : "30"
            let result = try scratch.runInjecting(syscall, "error=\(error)", when: when, ["restore", archive, root])
            // Said in the user's terms: ROOT, the file by its archive path, the cause; never the call or the
            // staging directory's name.
            PhoneScratch.expectCleanFailure(
                result,
                mentioning: ["cannot restore onto \(root): could not ", Self.phrase(error), "nothing was restored"])
            #expect(!result.stderr.contains(".devicectl-") && !result.stderr.contains(syscall), "\(result.stderr)")
            let after = try TreeSnapshot.take(root)
            #expect(after == before, "\(snapshotDifference(before, after))")
        }
    }

    @Test func aSmallFileSystemFailsTheRestoreAndChangesNothing() throws {
        try PhoneScratch.withFaults { scratch in
            let archive = try Self.archive(scratch)
            // A 4 MiB tmpfs in a private mount namespace holds a fresh device; the 13 MB archive cannot fit.
            let script = """
                mount -t tmpfs -o size=4m none "$1" || exit 99
                "$2" init "$1/phone" > /dev/null || exit 98
                snapshot() { (cd "$1/phone" && find . -printf '%p %y %m %s %T@\\n' | LC_ALL=C sort && find . -type f -exec sha256sum {} + | LC_ALL=C sort); }
                before=$(snapshot "$1")
                "$2" restore "$3" "$1/phone"; status=$?
                [ "$before" = "$(snapshot "$1")" ] && echo UNCHANGED
                exit $status
                """
            try FileManager.default.createDirectory(atPath: scratch.dir + "/mnt", withIntermediateDirectories: true)
            let result = try Shell.run(
                "unshare",
                [
                    "--mount", "--propagation", "private", "sh", "-c", script, "sh", scratch.dir + "/mnt",
                    DevicectlBinary.path, archive,
                ])
            try #require(result.status != 99, "cannot mount tmpfs here: \(result.stderr)")
            PhoneScratch.expectCleanFailure(result, mentioning: ["nothing was restored"])
            #expect(result.stdout.contains("UNCHANGED"), "\(result.stdout)")
        }
    }

    static func code(_ name: String) -> Int32 {
        ["ENOSPC": ENOSPC, "EIO": EIO, "EDQUOT": EDQUOT, "EFBIG": EFBIG][name]!
    }
}
