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
                let members = try TarTool.members(archive, tool: tool)
                #expect(members.last == ".devicectl-manifest.jsonl")
                let names = Set(members.dropLast().map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 })
                #expect(names == Self.kept, "\(tool): extra \(names.subtracting(Self.kept)), missing \(Self.kept.subtracting(names))")
                #expect(members.count == Self.kept.count + 1, "duplicates in \(members)")
            }
            // Deterministic order: depth first, a directory before its contents, names bytewise.
            let listed = try TarTool.members(archive).dropLast().map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
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
            let excluded = try #require(object["excludedPaths"] as? [[String: Any]])
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
            let counts = try #require(object["counts"] as? [String: Any])
            #expect(counts["files"] as? Int == 14, "\(object)")
            #expect(counts["hardlinks"] as? Int == 1)
            #expect((counts["bytes"] as? Int ?? 0) > 300_000)

            let text = try BackupCheck.devicectl(arguments)
            #expect(text.status == 0)
            #expect(text.stdout.contains("apple-dir/  (apple-exclude-xattr)\n"))
            #expect(text.stdout.contains("nodump.txt  (xdg-robots-backup, nodump)\n"))
            #expect(text.stdout.split(separator: "\n").count == expected.count)
            #expect(text.stderr.contains("would back up 14 files"), "\(text.stderr)")
            #expect(try directoryNames(in: dir) == ["src"])
        }
    }

    // MARK: - Issue 14: options checked, suffixes, patterns, summaries, progress

    /// A dry run refuses exactly what the backup refuses, and writes nothing.
    @Test(arguments: [
        (["--compression", "foo", "--level", "99"], "invalid value 'foo' for --compression"),
        (["--compression", "gzip", "--level", "99"], "--level 99 is out of range for gzip"),
        (["--level", "3"], "--level needs compression"),
        (["-o", "OUT/x.tar.bz2"], "cannot write a '.bz2' archive"),
        (["-o", "OUT/x.tar.zst", "--compression", "gzip"], "means zstd compression, but --compression is gzip"),
        (["-o", "-", "--json"], "--json prints on standard output"),
        (["--exclude", "["], "invalid --exclude '['"),
    ] as [([String], String)])
    func aDryRunRefusesWhatABackupRefuses(_ extra: [String], _ message: String) throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(atPath: "\(dir)/src", withIntermediateDirectories: false)
            let words = substitutingPlaceholders(extra, ["OUT": dir])
            for dryRun in [["--dry-run"], []] {
                let withOutput = words.contains("-o") || !dryRun.isEmpty ? words : words + ["-o", "\(dir)/b"]
                let result = try BackupCheck.devicectl(["backup", "\(dir)/src"] + dryRun + withOutput)
                #expect(result.status == 64, "\(dryRun) \(words): \(result.stderr)")
                #expect(result.stderr.contains(message), "\(result.stderr)")
                #expect(result.stdout.isEmpty)
            }
            #expect(try directoryNames(in: dir) == ["src"])
        }
    }

    /// A suffix devicectl cannot write, or one that contradicts --compression, is refused naming the file;
    /// a suffix that agrees (or no suffix) writes what it says.
    @Test(arguments: [
        ("x.tar.bz2", [], nil), ("x.zip", [], nil), ("x.tar.lz4", [], nil),
        ("x.tar.zst", ["--compression", "gzip"], nil),
        ("x.tgz", ["--compression", "none"], nil), ("x.tar", ["--compression", "xz"], "XZ compressed data"),
        ("x.gz", [], "gzip compressed data"), ("backup", ["--compression", "xz"], "XZ compressed data"),
        ("x.tar.zst", ["--compression", "zstd"], "Zstandard compressed data"),
    ] as [(String, [String], String?)])
    func theArchiveSuffixMustAgreeWithTheCompression(_ name: String, _ extra: [String], _ written: String?) throws {
        try withTemporaryDirectory { dir in
            try BackupCheck.sh("mkdir \"$1/src\" && printf data > \"$1/src/f\"", dir)
            let result = try BackupCheck.devicectl(["backup", "\(dir)/src", "-o", "\(dir)/\(name)"] + extra)
            guard let written else {
                #expect(result.status == 64, "\(result.stderr)")
                #expect(result.stderr.contains("-o \(dir)/\(name): "), "\(result.stderr)")
                #expect(try directoryNames(in: dir) == ["src"])
                return
            }
            #expect(result.status == 0, "\(result.stderr)")
            let file = try Shell.run("file", ["-b", "\(dir)/\(name)"])
            #expect(file.stdout.contains(written), "\(file.stdout)")
        }
    }

    /// `-o --json` is refused (no file named --json appears); `-o=--json` and `-o ./--json` are the ways
    /// to mean it.
    @Test func aValueOptionNeverTakesTheNextOption() throws {
        try withTemporaryDirectory { dir in
            try BackupCheck.sh("mkdir \"$1/src\" && printf data > \"$1/src/f\"", dir)
            let refused = try Shell.run(
                DevicectlBinary.path, ["backup", "src", "-o", "--json"],
                environment: ["DEVICECTL_NOW": BackupCheck.now], directory: dir)
            #expect(refused.status == 64)
            #expect(refused.stderr.contains("option '-o' needs a value (ARCHIVE), not the option '--json'"))
            #expect(try directoryNames(in: dir) == ["src"])
            for (words, name) in [(["-o=--json"], "--json"), (["-o", "./--x"], "--x")] {
                let result = try Shell.run(
                    DevicectlBinary.path, ["backup", "src"] + words, environment: ["DEVICECTL_NOW": BackupCheck.now],
                    directory: dir)
                #expect(result.status == 0, "\(result.stderr)")
                #expect(FileManager.default.fileExists(atPath: "\(dir)/\(name)"))
            }
        }
    }

    /// Anchored patterns match from ROOT, `*` stays within a name, `**` crosses, and the dry run names the
    /// pattern that matched.
    @Test func excludePatternsAreAnchoredAndNamed() throws {
        try withTemporaryDirectory { dir in
            let script = """
                set -e; cd "$1"; mkdir -p src/Containers/Data/a src/x/Containers/Data src/logs/deep src/keep
                printf 1 > src/Containers/Data/a/f; printf 2 > src/x/Containers/Data/g
                printf 3 > src/logs/top.log; printf 4 > src/logs/deep/d.log; printf 5 > src/keep/k
                """
            try BackupCheck.sh(script, dir)
            let arguments = [
                "backup", "\(dir)/src", "--dry-run", "--exclude", "/Containers/Data", "--exclude", "logs/*.log",
                "--exclude", "keep/**",
            ]
            let text = try BackupCheck.devicectl(arguments)
            #expect(text.status == 0, "\(text.stderr)")
            let lines = text.stdout.split(separator: "\n").map(String.init)
            #expect(lines == [
                "Containers/Data/  (pattern '/Containers/Data')", "keep/k  (pattern 'keep/**')",
                "logs/top.log  (pattern 'logs/*.log')",
            ])
            let json = try #require(
                try JSONSerialization.jsonObject(with: try BackupCheck.devicectl(arguments + ["--json"]).stdoutData)
                    as? [String: Any])
            let excluded = try #require(json["excludedPaths"] as? [[String: Any]])
            #expect(excluded.map { $0["pattern"] as? String } == ["/Containers/Data", "keep/**", "logs/*.log"])
        }
    }

    /// A skipped directory's bytes are not measured, and the summary says so instead of showing 0 B; counts
    /// agree in number with their noun.
    @Test func skippedDirectoriesAreNotShownAsZeroBytes() throws {
        try withTemporaryDirectory { dir in
            let script = """
                set -e; cd "$1"; mkdir -p src/cache src/keep
                printf 'Signature: 8a477f597d28d172789f06886806bc55\\n' > src/cache/CACHEDIR.TAG
                head -c 200000 /dev/urandom > src/cache/big; printf 12345 > src/keep/x.tmp; printf k > src/keep/k
                """
            try BackupCheck.sh(script, dir)
            let result = try BackupCheck.devicectl(["backup", "\(dir)/src", "-o", "\(dir)/a.tar", "--exclude", "*.tmp"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.stderr.contains(
                    "  excluded 1 file (5 B), 1 directory (contents not measured): cachedir-tag 1 directory, "
                        + "pattern 1 file (5 B)\n"), "\(result.stderr)")
            #expect(result.stderr.contains("  stored   1 file (1 B), 1 directory, 0 symlinks, 0 hard links\n"))
            #expect(!result.stderr.contains("entries"))
            let json = try #require(
                try JSONSerialization.jsonObject(
                    with: try BackupCheck.devicectl(
                        ["backup", "\(dir)/src", "-o", "\(dir)/b.tar", "--json"]).stdoutData)
                    as? [String: Any])
            #expect((json["excluded"] as? [String: Any])?["directories"] as? Int == 1)
            #expect(json["archiveBytesPerSecond"] != nil)
        }
    }

    /// The progress line fits the terminal's width (COLUMNS when stderr is not a terminal), so a redraw
    /// never leaves a wrapped row behind.
    @Test(arguments: [20, 40, 61])
    func theProgressLineFitsColumns(_ columns: Int) throws {
        try withTemporaryDirectory { dir in
            try BackupCheck.sh("mkdir \"$1/src\" && head -c 3000000 /dev/urandom > \"$1/src/big\"", dir)
            let result = try BackupCheck.devicectl(
                ["backup", "\(dir)/src", "-o", "\(dir)/a.tar", "--progress"], environment: ["COLUMNS": "\(columns)"])
            #expect(result.status == 0)
            // Each draw starts with "\r ESC[2K"; the last such sequence is finish() erasing the line.
            let draws = result.stderr.components(separatedBy: "\r\u{1B}[2K").dropFirst().dropLast().map {
                $0.split(separator: "\n", omittingEmptySubsequences: false)[0]
            }
            #expect(!draws.isEmpty)
            for draw in draws { #expect(draw.count <= columns - 1, "\(columns): '\(draw)'") }
        }
    }
}
