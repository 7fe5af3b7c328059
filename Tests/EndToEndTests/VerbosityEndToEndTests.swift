// VerbosityEndToEndTests: `-v/--verbose` (backup and restore list each path, as `tar -cv`/`-xv`) and
// `-q/--quiet` (errors only) through the binary.
import Foundation
import Glibc
import TestSupport
import Testing

@Suite struct VerbosityEndToEndTests {
    /// A tree with every kind a backup stores, names `list` escapes, an excluded directory and a FIFO (skipped
    /// with a warning).
    static func makeTree(_ root: String) throws {
        try BackupCheck.sh(
            """
            set -e
            mkdir -p "$1/Documents/deep/er" "$1/build/out" "$1/empty"
            printf hello > "$1/Documents/a.txt"
            printf deep > "$1/Documents/deep/er/b.bin"
            printf skip > "$1/build/out/c.o"
            ln -s a.txt "$1/Documents/link"
            ln "$1/Documents/a.txt" "$1/Documents/hard"
            printf n > "$1/Documents/new
            line"
            printf e > "$1/Documents/esc$(printf '\\033')[31mred"
            printf b > "$1/Documents/back\\\\slash"
            """, root)
        try #require(mkfifo(root + "/pipe", 0o600) == 0)
    }

    /// Stdout's (or stderr's) lines.
    static func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    /// `tar -tf`'s members without the manifest.
    static func stored(_ archive: String) throws -> [String] {
        try TarTool.members(archive).filter { $0 != ".devicectl-manifest.jsonl" }
    }

    @Test(arguments: ["b.tar", "b.tar.zst"])
    func backupVerboseListsTarsMembersInArchiveOrder(_ name: String) throws {
        try withTemporaryDirectory { dir in
            try Self.makeTree(dir + "/src")
            let archive = "\(dir)/\(name)"
            let result = try BackupCheck.devicectl(["backup", dir + "/src", "-o", archive, "-v", "--exclude", "build"])
            #expect(result.status == 0, "\(result.stderr)")
            let members = try Self.stored(archive)
            #expect(members.count == 11, "\(members)")
            #expect(members.contains("Documents/new\\nline") && members.contains("Documents/esc\\033[31mred"))
            #expect(Self.lines(result.stdout) == members)
            #expect(!result.stdout.contains("build") && !result.stdout.contains("pipe"))
            // The warning and the summary stay on stderr.
            #expect(result.stderr.contains("warning: skipping \(dir)/src/pipe"))
            #expect(result.stderr.contains("devicectl: backed up"))
        }
    }

    @Test func verboseWithArchiveOnStdoutListsOnStderrAndLeavesTheArchiveIntact() throws {
        try withTemporaryDirectory { dir in
            try Self.makeTree(dir + "/src")
            let plain = try BackupCheck.devicectl(["backup", dir + "/src", "-o", dir + "/file.tar"])
            #expect(plain.status == 0, "\(plain.stderr)")
            let result = try BackupCheck.devicectl(["backup", dir + "/src", "-o", "-", "--verbose"])
            #expect(result.status == 0, "\(result.stderr)")
            try result.stdoutData.write(to: URL(fileURLWithPath: dir + "/stdout.tar"))
            // The same bytes as the backup without -v (DEVICECTL_NOW pinned).
            #expect(result.stdoutData == FileManager.default.contents(atPath: dir + "/file.tar"))
            let members = try Self.stored(dir + "/stdout.tar")
            let listed = Self.lines(result.stderr).filter { !$0.hasPrefix("devicectl: ") && !$0.hasPrefix("  ") }
            #expect(listed == members)
        }
    }

    @Test func dryRunVerboseListsStoredAndSkippedPathsInWalkOrder() throws {
        try withTemporaryDirectory { dir in
            try Self.makeTree(dir + "/src")
            let backup = try BackupCheck.devicectl(
                ["backup", dir + "/src", "-o", dir + "/b.tar", "--exclude", "build"])
            #expect(backup.status == 0, "\(backup.stderr)")
            let members = try Self.stored(dir + "/b.tar")
            let quiet = try BackupCheck.devicectl(["backup", dir + "/src", "--dry-run", "--exclude", "build"])
            #expect(Self.lines(quiet.stdout) == ["build/  (pattern 'build')"])
            let result = try BackupCheck.devicectl(["backup", dir + "/src", "--dry-run", "-v", "--exclude", "build"])
            #expect(result.status == 0, "\(result.stderr)")
            let lines = Self.lines(result.stdout)
            #expect(lines.filter { !$0.hasSuffix("(pattern 'build')") } == members)
            // The skipped line keeps its format and its place in the walk (after `Documents/` and its contents).
            let skipped = try #require(lines.firstIndex(of: "build/  (pattern 'build')"))
            #expect(skipped > lines.lastIndex { $0.hasPrefix("Documents/") }!)
            #expect(result.stderr.contains("dry run of"))
        }
    }

    @Test func restoreVerboseListsEveryRestoredPath() throws {
        try withTemporaryDirectory { dir in
            try Self.makeTree(dir + "/src")
            let backup = try BackupCheck.devicectl(["backup", dir + "/src", "-o", dir + "/b.tar.gz"])
            #expect(backup.status == 0, "\(backup.stderr)")
            let members = try Self.stored(dir + "/b.tar.gz")
            let result = try BackupCheck.devicectl(["restore", "-v", dir + "/b.tar.gz", dir + "/new"])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(Self.lines(result.stdout) == members)
            #expect(result.stderr.contains("devicectl: restored"))
            #expect(FileManager.default.fileExists(atPath: dir + "/new/Documents/deep/er/b.bin"))
        }
    }

    @Test func quietPrintsNothingOnSuccess() throws {
        try withTemporaryDirectory { dir in
            try Self.makeTree(dir + "/src")
            // Without -q the same runs print a warning and summaries: -q is what silences them.
            let loud = try BackupCheck.devicectl(["backup", dir + "/src", "-o", dir + "/loud.tar"])
            #expect(loud.stderr.contains("warning: skipping") && loud.stderr.contains("backed up"))
            let runs: [[String]] = [
                ["backup", dir + "/src", "-o", dir + "/b.tar", "-q", "--progress"],
                ["backup", dir + "/src", "-o", dir + "/b.tar.zst", "--quiet"],
                ["verify", "-q", dir + "/b.tar"],
                ["restore", "-q", "--progress", dir + "/b.tar.zst", dir + "/new"],
            ]
            for arguments in runs {
                let result = try BackupCheck.devicectl(arguments)
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
                #expect(result.stdout.isEmpty && result.stderr.isEmpty, "\(arguments): \(result.stderr)")
            }
            #expect(FileManager.default.fileExists(atPath: dir + "/new/Documents/a.txt"))
            // Under --json the result is still printed, and still lists the warning no longer shown on stderr.
            let json = try BackupCheck.devicectl(["backup", dir + "/src", "-o", dir + "/j.tar", "-q", "--json"])
            #expect(json.status == 0 && json.stderr.isEmpty, "\(json.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])
            #expect((object["warnings"] as? [Any])?.count == 1)
        }
    }

    /// install, launch and list print data on stdout: they take -q as every command that prints does, and it keeps
    /// that data (only stderr is silenced).
    @Test func quietKeepsTheDataOfInstallLaunchAndList() throws {
        try withTemporaryDirectory { dir in
            let root = dir + "/phone"
            let environment = ["DEVICECTL_NOW": "2026-12-01T08:00:00Z"]
            #expect(try BackupCheck.devicectl(["init", root], environment: environment).status == 0)
            let install = try BackupCheck.devicectl(
                ["install", root, "--app", "com.example.news", "-q"], environment: environment)
            #expect(install.status == 0 && install.stderr.isEmpty && install.stdout.hasPrefix("installed com.example.news"),
                    "\(install.stdout)\(install.stderr)")
            let launch = try BackupCheck.devicectl(
                ["launch", root, "--app", "com.example.news", "--quiet"], environment: environment)
            #expect(launch.status == 0 && launch.stderr.isEmpty && launch.stdout.contains("device token sent: "),
                    "\(launch.stdout)\(launch.stderr)")
            try Self.makeTree(dir + "/src")
            let tar = try Shell.run("tar", ["-cf", dir + "/plain.tar", "-C", dir + "/src", "."])
            try #require(tar.status == 0, "\(tar.stderr)")
            let loud = try BackupCheck.devicectl(["list", dir + "/plain.tar"])
            let quiet = try BackupCheck.devicectl(["list", dir + "/plain.tar", "-q"])
            #expect(quiet.status == 0 && quiet.stderr.isEmpty && quiet.stdout == loud.stdout && !quiet.stdout.isEmpty,
                    "\(quiet.stderr)")
        }
    }

    @Test func quietStillPrintsTheErrorAndKeepsTheExitStatus() throws {
        try PhoneScratch.with(initialised: false) { phone in
            let altered = phone.dir + "/altered.tar"
            try RestoreArchives.withManifest(altered, corrupt: true)
            let verify = try BackupCheck.devicectl(["verify", "-q", altered])
            #expect(verify.status == 1)
            #expect(verify.stderr.contains("SHA-256 mismatch for 'Documents/a.txt'"), "\(verify.stderr)")
            #expect(verify.stderr.contains("failed verification (1 problem)"))
            let restore = try BackupCheck.devicectl(["restore", "-q", altered, phone.dir + "/new"])
            #expect(restore.status == 1)
            #expect(restore.stderr.hasPrefix("devicectl: "), "\(restore.stderr)")
            let backup = try BackupCheck.devicectl(
                ["backup", "-q", phone.dir + "/missing", "-o", phone.dir + "/b.tar"])
            #expect(backup.status == 1)
            #expect(backup.stderr.contains("missing"), "\(backup.stderr)")
            #expect(verify.stdout.isEmpty && restore.stdout.isEmpty && backup.stdout.isEmpty)
        }
    }

    @Test(arguments: [
        (["backup", "SRC", "-o", "OUT", "-q", "-v"], "-q/--quiet and -v/--verbose cannot be used together"),
        (["restore", "--verbose", "--quiet", "OUT", "NEW"], "-q/--quiet and -v/--verbose cannot be used together"),
        (["backup", "SRC", "-o", "OUT", "-v", "--json"], "cannot be used with --json"),
        (["restore", "-v", "--json", "OUT", "NEW"], "cannot be used with --json"),
    ])
    func verboseWithQuietOrJSONIsAUsageError(_ arguments: [String], _ message: String) throws {
        try withTemporaryDirectory { dir in
            try BackupCheck.sh("mkdir \"$1/src\" && printf a > \"$1/src/a\"", dir)
            let resolved = arguments.map {
                [
                    "SRC": dir + "/src", "OUT": dir + "/b.tar", "NEW": dir + "/new",
                ][$0] ?? $0
            }
            let result = try BackupCheck.devicectl(resolved)
            #expect(result.status == 64)
            #expect(result.stderr.contains(message), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(try directoryNames(in: dir) == ["src"])
        }
    }

    @Test func helpTextsShowTheOptions() throws {
        let both = ["--verbose, -v", "--quiet, -q"]
        for (command, options) in [("backup", both), ("restore", both), ("verify", ["--quiet, -q"])] {
            let help = try BackupCheck.devicectl([command, "--help"])
            for option in options { #expect(help.stdout.contains(option), "\(command): \(help.stdout)") }
        }
    }
}
