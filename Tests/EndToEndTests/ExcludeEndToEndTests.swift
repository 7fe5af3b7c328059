// ExcludeEndToEndTests: `devicectl exclude add|remove` set and clear Apple's exclusion xattr, byte for byte.
import Foundation
import Glibc
import TestSupport
import Testing

@Suite struct ExcludeEndToEndTests {
    @Test func addWritesApplesExactBytesOnFilesAndDirectories() throws {
        try withTemporaryDirectory { dir in
            let file = "\(dir)/big.cache"
            let folder = "\(dir)/Caches"
            try Data("x".utf8).write(to: URL(fileURLWithPath: file))
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            let phone = PhoneScratch(dir: dir)
            let result = try phone.ok(["exclude", "add", file, folder])
            #expect(result.stdout == "\(file): excluded from backup\n\(folder): excluded from backup\n")
            for path in [file, folder] {
                #expect(try PhoneScratch.exclusionHex(path) == PhoneScratch.exclusionHex)
                let raw = try PhoneScratch.exclusionBytes(path)
                #expect(raw.map { String(format: "%02x", $0) }.joined() == PhoneScratch.exclusionHex)
            }
            // The value is a binary plist holding the string com.apple.backupd.
            let decoded = try Shell.run(
                "sh",
                [
                    "-c",
                    """
                    getfattr --only-values -n "$1" --absolute-names "$2" | python3 -c 'import plistlib,sys; print(plistlib.loads(sys.stdin.buffer.read()))'
                    """, "sh", PhoneScratch.exclusionAttribute, file,
                ])
            #expect(decoded.stdout == "com.apple.backupd\n")
            // Adding again changes nothing.
            try phone.ok(["exclude", "add", file])
            #expect(try PhoneScratch.exclusionHex(file) == PhoneScratch.exclusionHex)
        }
    }

    /// A directory of the device replaced by a symlink out of it (the device's files are someone else's): add, remove
    /// and check refuse the path before anything is read or set, and the file outside keeps no flag; the same file
    /// named by its own path, or through a symlink above the device root, is flagged.
    @Test func aPathThroughASymlinkInTheDeviceIsRefused() throws {
        try withTemporaryDirectory { dir in
            let phone = PhoneScratch(dir: dir)
            try phone.ok(["init", phone.root])
            try phone.ok(["install", phone.root, "--app", "com.example.news"])
            let data = try phone.ok(["container", phone.root, "--app", "com.example.news", "data"]).stdout
                .trimmingCharacters(in: .newlines)
            let outside = dir + "/outside"
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: outside + "/notes.txt"))
            try? FileManager.default.removeItem(atPath: data + "/Documents")
            #expect(symlink(outside, data + "/Documents") == 0)
            let before = try TreeSnapshot.take(outside)
            for command in [["exclude", "add"], ["exclude", "remove"], ["exclude", "check"]] {
                let result = try phone.fails(command + [data + "/Documents/notes.txt"])
                #expect(result.stderr.contains("a directory on its way is a symbolic link inside the device root"))
            }
            #expect(try TreeSnapshot.take(outside) == before)
            // Its own path, and a path through a symlink above the device root, are the user's to name.
            try phone.ok(["exclude", "add", outside + "/notes.txt"])
            #expect(try PhoneScratch.exclusionHex(outside + "/notes.txt") == PhoneScratch.exclusionHex)
            #expect(symlink(dir, dir + "-link") == 0)
            defer { unlink(dir + "-link") }
            let file = "\(dir)-link/phone/Library/SpringBoard/IconState.plist"
            try phone.ok(["exclude", "add", file])
            #expect(try PhoneScratch.exclusionHex(phone.root + "/Library/SpringBoard/IconState.plist") == PhoneScratch.exclusionHex)
            // DeviceLocal (the identity) replaced by a symlink out of the device: still a device here.
            #expect(rename(phone.root + "/DeviceLocal", dir + "/DeviceLocal") == 0)
            #expect(symlink(dir + "/DeviceLocal", phone.root + "/DeviceLocal") == 0)
            let refused = try phone.fails(["exclude", "remove", data + "/Documents/notes.txt"])
            #expect(refused.stderr.contains("a directory on its way is a symbolic link inside the device root"))
            #expect(try PhoneScratch.exclusionHex(outside + "/notes.txt") == PhoneScratch.exclusionHex)
        }
    }

    @Test func removeClearsEveryExclusionFlag() throws {
        try withTemporaryDirectory { dir in
            let file = "\(dir)/keep.db"
            try Data().write(to: URL(fileURLWithPath: file))
            let phone = PhoneScratch(dir: dir)
            try phone.ok(["exclude", "add", file])
            #expect(try Shell.run("setfattr", ["-n", "user.com.apple.MobileBackup", "-v", "1", file]).status == 0)
            #expect(try Shell.run("setfattr", ["-n", "user.xdg.robots.backup", "-v", "false", file]).status == 0)
            let result = try phone.ok(["exclude", "remove", file])
            #expect(result.stdout == "\(file): no longer excluded from backup\n")
            let left = try Shell.run("getfattr", ["-d", "-m", "-", "--absolute-names", file])
            #expect(!left.stdout.contains("user."), "\(left.stdout)")
            try phone.ok(["exclude", "remove", file])
        }
    }

    @Test func aMissingPathIsNamedAndTheOthersStillRun() throws {
        try withTemporaryDirectory { dir in
            let a = "\(dir)/a"
            let b = "\(dir)/b"
            try Data().write(to: URL(fileURLWithPath: a))
            try Data().write(to: URL(fileURLWithPath: b))
            let phone = PhoneScratch(dir: dir)
            let result = try phone.fails(
                ["exclude", "add", a, "\(dir)/missing", b],
                mentioning: ["\(dir)/missing: no such file or directory"])
            #expect(result.stdout == "\(a): excluded from backup\n\(b): excluded from backup\n")
            #expect(try PhoneScratch.exclusionHex(a) == PhoneScratch.exclusionHex)
            #expect(try PhoneScratch.exclusionHex(b) == PhoneScratch.exclusionHex)
            try phone.fails(
                ["exclude", "remove", "\(dir)/missing", a], mentioning: ["\(dir)/missing: no such file or directory"])
            #expect(try PhoneScratch.exclusionHex(a) == nil)
            try phone.fails(["exclude", "add"], status: 64, mentioning: ["missing argument PATH"])
        }
    }

    @Test func aSymlinkIsRefusedClearly() throws {
        try withTemporaryDirectory { dir in
            try Data().write(to: URL(fileURLWithPath: "\(dir)/target"))
            try FileManager.default.createSymbolicLink(atPath: "\(dir)/link", withDestinationPath: "target")
            try PhoneScratch(dir: dir).fails(
                ["exclude", "add", "\(dir)/link"], mentioning: ["\(dir)/link: is a symbolic link"])
            #expect(try PhoneScratch.exclusionHex("\(dir)/target") == nil)
        }
    }

    @Test(.enabled(if: RamfsNamespace.available, "needs unshare and mount (root)"))
    func aFileSystemWithoutUserXattrsGetsAClearMessage() throws {
        let result = try RamfsNamespace.run(
            """
            touch "$1/f"
            "$2" exclude add "$1/f"; echo "add=$?"
            "$2" exclude remove "$1/f"; echo "remove=$?"
            """)
        #expect(result.stdout == "add=1\nremove=1\n")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(
            lines.allSatisfy {
                $0.hasPrefix("devicectl: ")
                    && $0.hasSuffix("/f: the file system does not support user extended attributes")
            })
    }
}
