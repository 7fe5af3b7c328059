// ScriptScenarioTests: `make demo` (Scripts/demo.sh) and the copyable Examples/migration.sh run the seed's story
// against the built binary and end with a verdict; a sabotaged devicectl makes both fail, so neither can rot
// into a script that always says yes.
import Foundation
import TestSupport
import Testing

@Suite("The demo and the example script")
struct ScriptScenarioTests {
    /// The package directory (this file is Tests/ScenarioTests/ScriptScenarioTests.swift).
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static let scripts = ["Scripts/demo.sh", "Examples/migration.sh"]

    /// Runs `bash SCRIPT` with `environment` (and TMPDIR inside `dir`, so nothing is left behind elsewhere).
    static func run(_ script: String, in dir: String, environment: [String: String]) throws -> RunResult {
        try Shell.run(
            "/bin/bash", ["\(package)/\(script)"], environment: environment.merging(["TMPDIR": dir]) { $1 },
            directory: dir)
    }

    static func lastLine(_ text: String) -> String {
        text.split(separator: "\n").last.map(String.init) ?? ""
    }

    @Test("The demo and the example tell the whole story and say it held", arguments: scripts)
    func scriptTellsTheStoryAndSaysItHeld(script: String) throws {
        try withTemporaryDirectory { dir in
            let result = try Self.run(script, in: dir, environment: ["DEVICECTL": DevicectlBinary.path])
            #expect(result.status == 0, "\(script):\n\(result.stdout)\n\(result.stderr)")
            #expect(Self.lastLine(result.stdout).hasPrefix("Verdict: the story held"), "\(result.stdout)")
            #expect(!result.stdout.contains("✘"), "\(result.stdout)")
            let tokens = result.stdout.split(separator: "\n").filter { $0.contains("token") }
                .compactMap { $0.split(separator: " ").last.map(String.init) }.filter { $0.count == 64 }
            #expect(Set(tokens).count == 2, "expected the old and the new phone's tokens in:\n\(result.stdout)")
            if script == "Scripts/demo.sh" {
                for command in [
                    "init old-phone", "install old-phone", "widget add old-phone", "launch old-phone",
                    "backup old-phone --dry-run", "backup old-phone -o", "restore old-phone.tar.zst new-phone",
                    "widget-refresh new-phone", "notifications new-phone", "tap new-phone --notification",
                    "events new-phone",
                ] {
                    #expect(
                        result.stdout.contains("$ devicectl \(command)"),
                        "the demo does not show `devicectl \(command)`")
                }
                #expect(result.stdout.contains("scheduled (restored)") && result.stdout.contains("none (not-armed)"))
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty, "\(script) left files behind")
        }
    }

    @Test("The example finds devicectl on PATH when DEVICECTL is not set")
    func exampleUsesDevicectlFromPath() throws {
        try withTemporaryDirectory { dir in
            let bin = URL(fileURLWithPath: DevicectlBinary.path).deletingLastPathComponent().path
            let path = "\(bin):" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            let result = try Shell.run(
                "/usr/bin/env",
                ["-u", "DEVICECTL", "PATH=\(path)", "TMPDIR=\(dir)", "bash", "\(Self.package)/Examples/migration.sh"])
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
            #expect(Self.lastLine(result.stdout).hasPrefix("Verdict: the story held"))
        }
    }

    /// A devicectl whose widget never runs: `widget-refresh` succeeds and decides nothing.
    static func sabotagedDevicectl(in dir: String) throws -> String {
        let path = "\(dir)/devicectl-without-widgets"
        let script = """
            #!/bin/sh
            if [ "$1" = widget-refresh ]; then
                case " $* " in *" --json "*) echo '{"widgets":[]}' ;; esac
                exit 0
            fi
            exec '\(DevicectlBinary.path)' "$@"
            """
        try Data(script.utf8).write(to: URL(fileURLWithPath: path))
        try #require(chmod(path, 0o755) == 0)
        return path
    }

    @Test("When the widget never runs, the demo and the example say the story did not hold", arguments: scripts)
    func scriptFailsWhenTheStoryDoesNotHold(script: String) throws {
        try withTemporaryDirectory { dir in
            let fake = try Self.sabotagedDevicectl(in: dir)
            let result = try Self.run(script, in: dir, environment: ["DEVICECTL": fake])
            #expect(result.status == 1, "\(script) should fail:\n\(result.stdout)\n\(result.stderr)")
            #expect(
                Self.lastLine(result.stdout).hasPrefix("Verdict: the story did not hold"),
                "\(result.stdout)\n\(result.stderr)")
        }
    }

    /// The two smaller stories: flag policies side by side, and two widgets on one home screen.
    static let stories = ["Examples/flag-policies.sh", "Examples/two-widgets.sh"]

    @Test("The policy and two-widget examples say their story held, and not with a widget that never runs",
          arguments: stories)
    func storyExampleHoldsAndFailsWhenSabotaged(script: String) throws {
        try withTemporaryDirectory { dir in
            let result = try Self.run(script, in: dir, environment: ["DEVICECTL": DevicectlBinary.path])
            #expect(result.status == 0, "\(script):\n\(result.stdout)\n\(result.stderr)")
            #expect(Self.lastLine(result.stdout).hasPrefix("Verdict: the story held"), "\(result.stdout)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty, "\(script) left files behind")
            let fake = try Self.sabotagedDevicectl(in: dir)
            let sabotaged = try Self.run(script, in: dir, environment: ["DEVICECTL": fake])
            #expect(sabotaged.status == 1 && Self.lastLine(sabotaged.stdout).hasPrefix("Verdict: the story did not hold"),
                    "\(sabotaged.stdout)\n\(sabotaged.stderr)")
        }
    }

    /// A phone (News installed, its widget placed, launched when `launched`) backed up in the MobileSync format
    /// into `dir/backup`, encrypted when `password` is given.
    static func phoneBackup(in dir: String, launched: Bool, password: String? = nil) throws -> String {
        let phone = dir + "/phone", backup = dir + "/backup"
        var commands = [
            ["init", phone], ["install", phone, "--app", "com.example.news", "--group", "group.com.example.news"],
            ["widget", "add", phone, "--app", "com.example.news"],
        ]
        if launched { commands.append(["launch", phone, "--app", "com.example.news"]) }
        commands.append(
            ["backup", phone, "--format", "mobilesync", "-o", backup, "-q"]
                + (password == nil ? [] : ["--encrypt", "--kdf-iterations", "1000,100"]))
        for command in commands {
            let result = try Shell.run(
                DevicectlBinary.path, command,
                environment: ["DEVICECTL_NOW": "2026-12-01T08:00:00Z", "DEVICECTL_BACKUP_PASSWORD": password ?? ""])
            try #require(result.status == 0, "\(command): \(result.stderr)")
        }
        return backup
    }

    static let finderExample = "Examples/finder-backup-nudge.sh"

    /// `finder-backup-nudge.sh BACKUP [APP]` on `backup`, with TMPDIR in `dir`.
    static func askWidget(_ backup: String, in dir: String, _ more: [String] = [], password: String? = nil) throws
        -> RunResult
    {
        let temporary = dir + "/tmp"
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        var environment = ["DEVICECTL": DevicectlBinary.path, "TMPDIR": temporary, "DEVICECTL_NOW": "2026-12-02T08:00:00Z"]
        if let password { environment["DEVICECTL_BACKUP_PASSWORD"] = password }
        let result = try Shell.run("/bin/bash", ["\(package)/\(finderExample)", backup] + more, environment: environment)
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary).isEmpty, "the example left files behind")
        return result
    }

    @Test("The Finder-backup example restores a phone's backup and says the widget would nudge")
    func finderBackupExampleSaysTheWidgetWouldNudge() throws {
        try withTemporaryDirectory { dir in
            let backup = try Self.phoneBackup(in: dir, launched: true)
            let result = try Self.askWidget(backup, in: dir)
            #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
            #expect(Self.lastLine(result.stdout).hasPrefix("Verdict: the widget would nudge: com.example.news"), "\(result.stdout)")
            let named = try Self.askWidget(backup, in: dir, ["com.example.news"])
            #expect(named.status == 0, "\(named.stdout)\n\(named.stderr)")
            let other = try Self.askWidget(backup, in: dir, ["com.example.mail"])
            #expect(other.status == 1 && Self.lastLine(other.stdout).contains("com.example.mail has no nudge widget"), "\(other.stdout)")
        }
    }

    @Test("The Finder-backup example reads an encrypted backup and says no nudge when the app never ran")
    func finderBackupExampleSaysNoNudgeWhenTheAppNeverRan() throws {
        try withTemporaryDirectory { dir in
            let backup = try Self.phoneBackup(in: dir, launched: false, password: "pw")
            let result = try Self.askWidget(backup, in: dir, password: "pw")
            #expect(result.status == 1, "\(result.stdout)\n\(result.stderr)")
            #expect(Self.lastLine(result.stdout) == "Verdict: no nudge: com.example.news (not-armed)", "\(result.stdout)")
            let wrong = try Self.askWidget(backup, in: dir, password: "wrong")
            #expect(wrong.status == 2 && wrong.stderr.contains("wrong password"), "\(wrong.stdout)\n\(wrong.stderr)")
        }
    }
}
