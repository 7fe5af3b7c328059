// BackupCommandEndToEndTests: `devicectl backup` options, usage errors, odd names, progress and summaries.
import Foundation
import TestSupport
import Testing

@Suite struct BackupCommandEndToEndTests {
    @Test(arguments: [
        (["backup", "SRC"], "missing -o ARCHIVE"),
        (["backup", "SRC", "-o", "OUT/b.tar", "--compression", "lz4"], "invalid value 'lz4' for --compression"),
        (["backup", "SRC", "-o", "OUT/b.tar.zst", "--level", "30"], "--level 30 is out of range for zstd (1-19)"),
        (["backup", "SRC", "-o", "OUT/b.tar", "--level", "3"], "--level needs compression"),
        (["backup", "SRC", "-o", "OUT/b.tar.gz", "--level", "fast"], "invalid value 'fast' for --level"),
        (["backup", "SRC", "-o", "-", "--json"], "--json prints on standard output"),
        (["backup", "SRC", "-o", "OUT/b.tar", "--exclude", ""], "--exclude needs a non-empty GLOB"),
        (["backup", "SRC", "-o", "OUT/b.tar", "--dryrun"], "did you mean '--dry-run'?"),
    ])
    func usageErrorsExit64AndWriteNothing(_ arguments: [String], _ message: String) throws {
        try withTemporaryDirectory { dir in
            try BackupCheck.sh("mkdir \"$1/src\" \"$1/out\" && printf a > \"$1/src/a\"", dir)
            let resolved = substitutingPlaceholders(arguments, ["SRC": "\(dir)/src", "OUT": "\(dir)/out"])
            let result = try BackupCheck.devicectl(resolved)
            #expect(result.status == 64)
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(try directoryNames(in: "\(dir)/out") == [])
        }
    }

    @Test func oddNamesAreSkippedWithAWarningAndLongUTF8NamesKept() throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/src"
            let long = String(repeating: "長い名前", count: 20) + ".txt"  // 243 bytes of UTF-8
            try BackupCheck.sh(
                """
                set -e
                mkdir -p "$1/sub"
                printf fake > "$1/.devicectl-manifest.jsonl"
                printf deeper > "$1/sub/.devicectl-manifest.jsonl"
                printf long > "$1/$2"
                python3 -c 'import os,sys; open(os.path.join(sys.argv[1].encode(), b"latin-\\xe9.txt"), "w").write("x")' "$1"
                """, root, long)
            let archive = "\(dir)/b.tar"
            let result = try BackupCheck.devicectl(["backup", root, "-o", archive])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("warning: skipping \(root)/.devicectl-manifest.jsonl: the name is reserved for the backup manifest"))
            #expect(result.stderr.contains("its name is not valid UTF-8"))
            let members = try TarTool.members(archive)
            #expect(members == ["sub/", "sub/.devicectl-manifest.jsonl", long, ".devicectl-manifest.jsonl"])
            #expect(try TarTool.members(archive, tool: "bsdtar") == members)
            let lines = try TarTool.manifest(archive)
            #expect(lines.compactMap { $0["path"] as? String } == ["sub/.devicectl-manifest.jsonl", long])
        }
    }

    @Test func progressIsDrawnOnlyWhenAskedOrOnATerminal() throws {
        try withTemporaryDirectory { dir in
            try BackupCheck.sh("mkdir \"$1/src\" && head -c 3000000 /dev/urandom > \"$1/src/big\"", dir)
            let forced = try BackupCheck.devicectl(["backup", "\(dir)/src", "-o", "\(dir)/a.tar", "--progress"])
            #expect(forced.status == 0)
            #expect(forced.stderr.contains("\r\u{1B}[2K"), "\(forced.stderr)")
            let quiet = try BackupCheck.devicectl(["backup", "\(dir)/src", "-o", "\(dir)/b.tar"])
            #expect(!quiet.stderr.contains("\r"))
            #expect(quiet.stderr.hasPrefix("devicectl: backed up \(dir)/src to \(dir)/b.tar\n"), "\(quiet.stderr)")
            #expect(quiet.stderr.contains("  stored   1 file (3.0 MB), 0 directories, 0 symlinks, 0 hard links\n"))
            #expect(quiet.stderr.contains("  excluded 0 files (0 B)\n"))
            #expect(quiet.stderr.contains("  archive  3.0 MB written in "))
            let none = try BackupCheck.devicectl(["backup", "\(dir)/src", "-o", "\(dir)/c.tar", "--progress", "--no-progress"])
            #expect(!none.stderr.contains("\r"))
        }
    }

    @Test func jsonSummaryHasTheDocumentedShape() throws {
        try withTemporaryDirectory { dir in
            try BackupCheck.sh(
                "set -e; mkdir -p \"$1/src/c\"; printf abc > \"$1/src/a\"; printf 12345 > \"$1/src/b.log\"; chattr +d \"$1/src/c\"",
                dir)
            let result = try BackupCheck.devicectl(["backup", "\(dir)/src", "-o", "\(dir)/b.tar.gz", "--exclude", "*.log", "--json"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.isEmpty, "\(result.stderr)")
            let object = try PhoneScratch.json(result)
            let counts = try #require(object["counts"] as? [String: Any])
            #expect(counts["files"] as? Int == 1)
            #expect(counts["bytes"] as? Int == 3)
            #expect(object["compression"] as? String == "gzip")
            let size = try FileManager.default.attributesOfItem(atPath: "\(dir)/b.tar.gz")[.size] as? Int
            #expect(object["archiveBytes"] as? Int == size)
            let excluded = try #require(object["excluded"] as? [String: Any])
            #expect(excluded["entries"] as? Int == 2)
            #expect(excluded["directories"] as? Int == 1)
            #expect(excluded["bytes"] as? Int == 5)
            #expect(excluded["byReason"] as? [String: [String: Int]] == [
                "pattern": ["entries": 1, "directories": 0, "bytes": 5],
                "nodump": ["entries": 1, "directories": 1, "bytes": 0],
            ])
            #expect(object["seconds"] is Double || object["seconds"] is Int)
        }
    }
}
