// DeviceRootFuzzer: runs devicectl's device commands (status, launch, widget-refresh, defaults, exclude, install,
// uninstall, backups ...) on mutated device roots and checks what every command owes a tree someone else wrote:
//   no crash, no hang, exit 0 or 1 with a `devicectl: ` message; nothing outside ROOT created, changed or removed
//   (a sentinel, the secret the planted symlinks point at, the directories moved out of ROOT); and nothing read
//   outside ROOT: no output, archive or backup holds the secret.
import Foundation
import Glibc
import SystemKit
import TestSupport

final class DeviceRootFuzzer: CaseFuzzer {
    let config: FuzzConfig
    /// The scratch area (tmpfs): `seed/` (the device), `fresh/` (a device just made, as a restore takes it),
    /// `archives/` (a tar and a MobileSync backup of the seed, to restore onto a mutated fresh device), `sentinel/`,
    /// `outside/` (the mutator's), `out/` (backups), `phone` (the case's ROOT).
    let base: String
    var root: String { base + "/phone" }
    var outside: String { base + "/outside" }
    var out: String { base + "/out" }
    private let watchdog: FuzzWatchdog
    /// The seed's app data container, relative to ROOT (for the commands that take a path).
    private let dataContainer: String

    init(config: FuzzConfig) throws {
        self.config = config
        base = try makeTemporaryDirectory(inMemory: true)
        watchdog = FuzzWatchdog(hardLimit: config.hardLimit)
        try Sentinel.make(at: base + "/sentinel")
        let seed = base + "/seed"
        try FuzzSeeds.makeDevice(seed)
        let data = try PhoneScratch.dataContainer(seed)
        dataContainer = String(data.dropFirst(seed.count + 1))
        let group = try DevicectlBinary.run(["container", seed, "--app", "com.example.news", "group.com.example.news"])
        let groupPath = group.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try Data("{}".utf8).write(to: URL(fileURLWithPath: data + "/Documents/notes.json"))
        symlink("notes.json", data + "/Documents/link")
        let launched = try DevicectlBinary.run(["launch", seed, "--app", "com.example.news"], environment: Self.environment)
        guard launched.status == 0, !groupPath.isEmpty else {
            throw FuzzSetupError("seed: \(launched.stderr) \(group.stderr)")
        }
        try DevicectlBinary.run(["widget-refresh", seed], environment: Self.environment.merging(
            ["DEVICECTL_NOW": "2026-12-03T09:00:00Z"]) { $1 })
        try FileManager.default.createDirectory(atPath: base + "/archives", withIntermediateDirectories: true)
        for command in [
            ["init", base + "/fresh"], ["backup", seed, "-o", base + "/archives/a.tar"],
            ["backup", seed, "--format", "mobilesync", "-o", base + "/archives/ms"],
        ] {
            let made = try DevicectlBinary.run(command, environment: Self.environment)
            guard made.status == 0 else { throw FuzzSetupError("\(command[0]): \(made.stderr)") }
        }
    }

    deinit {
        watchdog.stop()
        removeTree(base)
    }

    static let environment = ["DEVICECTL_NOW": "2026-12-01T10:00:00Z", "DEVICECTL_LOCK_TIMEOUT": "5"]

    /// What a case on the fresh device runs: restores of the seed's backups onto it (the archives' directory
    /// substituted for `$`), and the commands that read a fresh device.
    static let freshCommands: [[String]] = [
        ["restore", "$/a.tar", "@"], ["restore", "$/ms", "@"], ["status", "@"], ["events", "@"],
        ["install", "@", "--app", "com.example.other"], ["backup", "@", "-o", "%/a.tar"],
    ]

    /// The commands a case picks from (ROOT's path substituted for `@`, the out directory's for `%`, the app data
    /// container's for `&`).
    static let commands: [[String]] = [
        ["status", "@"], ["status", "@", "--json"], ["widget-refresh", "@"], ["launch", "@", "--app", "com.example.news"],
        ["notifications", "@"], ["events", "@"], ["defaults", "read", "@", "group.com.example.news"],
        ["defaults", "write", "@", "group.com.example.news", "notificationEnabled", "-bool", "false"],
        ["defaults", "delete", "@", "com.example.news"], ["exclude", "check", "@/&/Documents"],
        ["exclude", "add", "@/&/Documents/notes.json"], ["exclude", "remove", "@/&/Documents"],
        ["container", "@", "--app", "com.example.news", "data"], ["widget", "list", "@"],
        ["widget", "remove", "@", "--app", "com.example.news"], ["widget", "add", "@", "--app", "com.example.news"],
        ["install", "@", "--app", "com.example.other", "--group", "group.com.example.other"],
        ["uninstall", "@", "--app", "com.example.news"], ["backup", "@", "-o", "%/a.tar"],
        ["backup", "@", "--format", "mobilesync", "-o", "%/ms"], ["tap", "@", "--notification", "1"],
    ]

    // MARK: - Running

    static let reportEvery = 100

    /// A run's summary in this fuzzer's terms (its counts: commands that succeeded, that failed with a message).
    static func describe(_ summary: FuzzSummary) -> String {
        "\(summary.cases) cases in \(Int(summary.seconds)) s: \(summary.verifiedRestores) commands succeeded, "
            + "\(summary.cleanFailures) failed with a message; slowest case \(summary.slowest.index) "
            + "(\(String(format: "%.2f", summary.slowest.seconds)) s); \(summary.findings.count) findings"
    }

    /// Case `index`'s ROOT (a copy of the seed, mutated) and the commands it runs; returns the steps and commands.
    func prepare(_ index: Int) throws -> (steps: [String], commands: [[String]]) {
        for path in [root, outside, out] { removeTree(path) }
        for path in [outside, out] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) }
        try Data(MobileSyncMutator.secret).write(to: URL(fileURLWithPath: outside + "/" + MobileSyncMutator.secretName))
        var rng = SeededGenerator(seed: config.seed &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(index) ^ 0x4452)
        // A third of the cases mutate a fresh device and restore onto it.
        let fresh = Int.random(in: 0..<3, using: &rng) == 0
        let copied = try Shell.run("cp", ["-a", base + (fresh ? "/fresh" : "/seed"), root])
        guard copied.status == 0 else { throw FuzzSetupError("cp: \(copied.stderr)") }
        var mutator = DeviceRootMutator(seed: rng.next(), outside: outside)
        try mutator.mutate(root)
        let commands = (0..<4).map { _ in
            substitutingPlaceholders(
                (fresh ? Self.freshCommands : Self.commands).randomElement(using: &rng)!,
                ["@": root, "%": out, "&": dataContainer, "$": base + "/archives"])
        }
        return ((fresh ? ["fresh device"] : []) + mutator.steps, commands)
    }

    func runCase(_ index: Int, into summary: inout FuzzSummary) throws {
        watchdog.begin("case \(index), while it was being prepared")
        defer { watchdog.end() }
        let (steps, commands) = try prepare(index)
        let label = "case \(index) (\(steps.joined(separator: "; ")))"
        if config.only != nil { FuzzWatchdog.report("fuzz: \(label); \(commands.map { $0.prefix(2).joined(separator: " ") })") }
        watchdog.begin("\(label), ROOT \(root)")
        let before = try outsideSnapshot()
        var problems: [String] = []
        for command in commands {
            let name = command.prefix(2).joined(separator: " ")
            let child = try ChildProcess.devicectl(command, environment: Self.environment)
            guard child.finish(within: config.caseBudget) else {
                problems.append("devicectl \(name) did not finish in \(config.caseBudget) s")
                continue
            }
            let stderr = child.stderr
            let stdout = child.stdout
            problems += FuzzCases.problems(of: child, name, json: command.contains("--json"))
            child.status == 0 ? (summary.verifiedRestores += 1) : (summary.cleanFailures += 1)
            let secret = String(decoding: MobileSyncMutator.secret.dropLast(), as: UTF8.self)
            if stdout.contains(secret) || stderr.contains(secret) {
                problems.append("devicectl \(name) printed bytes read outside ROOT")
            }
            let after = try outsideSnapshot()
            if after != before {
                problems.append("devicectl \(name) changed something outside ROOT: \(after.differences(from: before).prefix(5))")
                break
            }
        }
        for file in try outputFiles() {
            guard let bytes = FuzzBytes.regularFile(file) else { continue }
            if FuzzBytes.contains(bytes, MobileSyncMutator.secret) { problems.append("\(file) holds bytes read outside ROOT") }
        }
        if !problems.isEmpty {
            summary.findings.append(FuzzFinding(index: index, seed: "device", steps: steps, problem: problems.joined(separator: " | ")))
            if let artifacts = config.artifacts {
                let directory = "\(artifacts)/device-case-\(index)"
                removeTree(directory)
                try? FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
                _ = try? Shell.run("cp", ["-a", root, directory])
                try? Data("\(label)\n\(commands)\n\(problems)\n".utf8).write(to: URL(fileURLWithPath: "\(directory).txt"))
            }
        }
    }

    /// Everything in the scratch area but ROOT, the backups' directory and the seeds (the archives a restore reads
    /// included); the top's mtime left out.
    private func outsideSnapshot() throws -> TreeSnapshot {
        try TreeSnapshot(base) { $0 == "phone" || $0 == "out" || $0 == "seed" || $0 == "fresh" }
            .ignoringMtimes { $0 == "." }
    }

    /// The regular files the backups wrote.
    private func outputFiles() throws -> [String] {
        DeviceRootMutator.entries(out).files.map { out + "/" + $0 }
    }
}
