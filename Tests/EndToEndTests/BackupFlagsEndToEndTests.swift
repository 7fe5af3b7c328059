// BackupFlagsEndToEndTests: a tree with every kind of exclusion flag (set with setfattr, chattr, mkfifo)
// is backed up; GNU tar and bsdtar list and extract exactly the right entries, silently, with identical
// bytes and metadata; the dry run names every skipped path with its reasons.
import Foundation
import TestSupport
import Testing

@Suite struct BackupFlagsEndToEndTests {
    static let longName = String(repeating: "L", count: 150) + ".txt"
    static let longDirectory = (1...12).map { "directory-level-\($0)-" + String(repeating: "d", count: 10) }.joined(separator: "/")

    /// Builds the tree under `root` with the real tools.
    static func build(_ root: String) throws {
        let script = """
            set -e
            cd "$1"
            mkdir -p keep/sub/deep keep/empty-dir "keep/$3" apple-dir nodump-dir cache notcache build
            printf plain > keep/plain.txt; chmod 640 keep/plain.txt
            : > keep/empty
            printf '#!/bin/sh\\necho hi\\n' > keep/exec.sh; chmod 755 keep/exec.sh
            head -c 300000 /dev/urandom > keep/sub/deep/file
            chmod 700 keep/empty-dir
            ln -s plain.txt keep/link
            ln -s /etc/hostname keep/abs-link
            printf linked > keep/hard1; ln keep/hard1 keep/hard2
            printf x > keep/xattr.txt
            setfattr -n user.comment -v hello keep/xattr.txt
            setfattr -n user.bin -v 0x00ff10 keep/xattr.txt
            setfattr -n user.dir -v yes keep/sub
            printf t > keep/xdg-true.txt; setfattr -n user.xdg.robots.backup -v true keep/xdg-true.txt
            printf m > keep/mobile-0.txt; setfattr -n user.com.apple.MobileBackup -v 0 keep/mobile-0.txt
            printf owned > keep/owned.txt; chown 1234:5678 keep/owned.txt
            printf 'unicode' > 'keep/ünïcödé-名前.txt'
            printf long > "keep/$2"
            printf deep > "keep/$3/file.txt"
            printf y > keep/y.tmp
            printf a > apple.txt; setfattr -n user.com.apple.metadata:com_apple_backup_excludeItem -v "0x$4" apple.txt
            printf inside > apple-dir/inside.txt
            setfattr -n user.com.apple.metadata:com_apple_backup_excludeItem -v "0x$4" apple-dir
            printf m > mobile.txt; setfattr -n user.com.apple.MobileBackup -v 1 mobile.txt
            printf m > mobile-hex.txt; setfattr -n user.com.apple.MobileBackup -v 0x01 mobile-hex.txt
            printf x > xdg.txt; setfattr -n user.xdg.robots.backup -v false xdg.txt
            printf n > nodump.txt; chattr +d nodump.txt
            printf n > nodump-dir/child; chattr +d nodump-dir
            printf 'Signature: 8a477f597d28d172789f06886806bc55\\n# cache\\n' > cache/CACHEDIR.TAG; printf c > cache/data
            printf 'Signature: not a cache\\n' > notcache/CACHEDIR.TAG; printf d > notcache/data
            printf o > build/out.o
            printf t > x.tmp
            mkfifo fifo
            mknod chardev c 1 3
            python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' sock
            find . -path ./sock -prune -o -exec touch -h -d '2023-11-14 22:13:20.123456789' {} +
            touch -d '2024-02-29 12:00:00.000000001' keep/plain.txt
            touch -h -d '2022-01-01 00:00:00.5' keep/link
            touch -d '2021-06-01 08:00:00.999999999' keep/sub
            """
        try BackupCheck.sh(script, root, longName, longDirectory, PhoneScratch.exclusionHex)
    }

    static let kept: Set<String> = {
        var paths: Set<String> = [
            "keep", "keep/abs-link", "keep/empty", "keep/empty-dir", "keep/exec.sh", "keep/hard1", "keep/hard2",
            "keep/link", "keep/mobile-0.txt", "keep/owned.txt", "keep/plain.txt", "keep/sub", "keep/sub/deep",
            "keep/sub/deep/file", "keep/xattr.txt", "keep/xdg-true.txt", "keep/ünïcödé-名前.txt", "keep/\(longName)",
            "keep/\(longDirectory)/file.txt", "notcache", "notcache/CACHEDIR.TAG", "notcache/data",
        ]
        var prefix = "keep"
        for part in longDirectory.split(separator: "/") {
            prefix += "/\(part)"
            paths.insert(prefix)
        }
        return paths
    }()

    @Test func exactlyTheRightEntriesWithIdenticalBytesAndMetadata() throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/src"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
            try Self.build(root)
            let archive = "\(dir)/backup.tar"
            let result = try BackupCheck.devicectl(["backup", root, "-o", archive, "--exclude", "build", "--exclude", "*.tmp"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("devicectl: warning: skipping \(root)/fifo: a FIFO cannot be stored"))
            #expect(result.stderr.contains("devicectl: warning: skipping \(root)/sock: a socket cannot be stored"))
            #expect(result.stderr.contains("devicectl: warning: skipping \(root)/chardev: a character device cannot be stored"))

            for tool in ["tar", "bsdtar"] {
                let members = try BackupCheck.members(archive, tool: tool)
                #expect(members.last == ".devicectl-manifest.jsonl")
                let names = Set(members.dropLast().map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 })
                #expect(names == Self.kept, "\(tool): extra \(names.subtracting(Self.kept)), missing \(Self.kept.subtracting(names))")
                #expect(members.count == Self.kept.count + 1, "duplicates in \(members)")
            }
            // Deterministic order: depth first, a directory before its contents, names bytewise.
            let listed = try BackupCheck.members(archive).dropLast().map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
            let ordered = listed.sorted { Array($0.utf8).split(separator: UInt8(ascii: "/")).lexicographicallyPrecedes(
                Array($1.utf8).split(separator: UInt8(ascii: "/")), by: { $0.lexicographicallyPrecedes($1) }) }
            #expect(listed == ordered)

            let original = try BackupCheck.dump(root)
            for tool in ["tar", "bsdtar"] {
                let out = "\(dir)/extracted-\(tool)"
                try BackupCheck.extract(archive, into: out, tool: tool)
                try FileManager.default.removeItem(atPath: "\(out)/.devicectl-manifest.jsonl")
                let extracted = try BackupCheck.dump(out)
                #expect(Set(extracted.keys) == Self.kept)
                for path in Self.kept.sorted() {
                    #expect(extracted[path] == original[path], "\(tool) \(path): \(extracted[path] ?? [:]) != \(original[path] ?? [:])")
                }
            }
            // The properties the dump compares, spelled out where they are easy to get wrong.
            #expect(original["keep/plain.txt"]?["mtime_ns"] == "1709208000000000001")
            #expect(original["keep/owned.txt"]?["uid"] == "1234")
            #expect(original["keep/xattr.txt"]?["xattr user.bin"] == "00ff10")
            #expect(original["keep/hard2"]?["hardlinks"] == "keep/hard1,keep/hard2")
            let verbose = try Shell.run("tar", ["--full-time", "-tvf", archive])
            #expect(verbose.stdout.contains("hrw-r--r-- 0/0               0 2023-11-14 22:13:20.123456789 keep/hard2 link to keep/hard1"))
            #expect(verbose.stdout.contains("1234/5678"))
        }
    }

    @Test func dryRunNamesEverySkippedPathWithAllItsReasons() throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/src"
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: false)
            try Self.build(root)
            try BackupCheck.sh("setfattr -n user.xdg.robots.backup -v false \"$1\"", "\(root)/nodump.txt")
            let arguments = ["backup", root, "--dry-run", "--exclude", "build", "--exclude", "*.tmp"]
            let json = try BackupCheck.devicectl(arguments + ["--json"])
            #expect(json.status == 0, "\(json.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])
            let excluded = try #require(object["excluded"] as? [[String: Any]])
            let pairs = excluded.map { ($0["path"] as! String, ($0["reasons"] as! [String]).joined(separator: ",")) }
            let expected = [
                ("apple-dir", "apple-exclude-xattr"), ("apple.txt", "apple-exclude-xattr"), ("build", "pattern"),
                ("cache", "cachedir-tag"), ("keep/y.tmp", "pattern"), ("mobile-hex.txt", "ios-mobilebackup-xattr"),
                ("mobile.txt", "ios-mobilebackup-xattr"), ("nodump-dir", "nodump"), ("nodump.txt", "xdg-robots-backup,nodump"),
                ("x.tmp", "pattern"), ("xdg.txt", "xdg-robots-backup"),
            ]
            #expect(pairs.map(\.0) == expected.map(\.0))
            #expect(pairs.map(\.1) == expected.map(\.1))
            // 14 regular files with data (keep/hard2 is a hard link to keep/hard1).
            #expect(object["files"] as? Int == 14, "\(object)")
            #expect(object["hardlinks"] as? Int == 1)
            #expect((object["bytes"] as? Int ?? 0) > 300_000)

            let text = try BackupCheck.devicectl(arguments)
            #expect(text.status == 0)
            #expect(text.stdout.contains("apple-dir/  (apple-exclude-xattr)\n"))
            #expect(text.stdout.contains("nodump.txt  (xdg-robots-backup, nodump)\n"))
            #expect(text.stdout.split(separator: "\n").count == expected.count)
            #expect(text.stderr.contains("would back up 14 files"), "\(text.stderr)")
            #expect(try BackupCheck.names(in: dir) == ["src"])
        }
    }
}
