// MobileSyncFuzzer: runs mutated MobileSync backups through the devicectl binary (verify, list, restore) and checks
// the properties every backup directory must have, whoever wrote it:
//   no crash, no hang, exit 0 or 1 with a `devicectl: ` message; nothing in DIR changed (its tree hashed before
//   and after); nothing outside ROOT changed; a failed restore leaves no ROOT; a restored ROOT holds only regular
//   files, directories and symlinks that stay inside it, and no byte read through a symlink out of the backup; and
//   a backup verify passes, list and restore take.
import BackupKit
import DeviceKit
import Foundation
import Glibc
import SystemKit
import TestSupport

/// One valid backup directory to mutate.
struct MobileSyncFuzzSeed {
    let name: String
    let path: String
    /// The password of an encrypted seed.
    let password: String?
}

final class MobileSyncFuzzer: CaseFuzzer {
    let config: FuzzConfig
    /// The scratch area (tmpfs): `seeds/`, `sentinel/`, `outside/` (the mutator's symlink targets), `backup` (the
    /// case's DIR) and `outer/root` (the restore's ROOT, absent before each restore).
    let base: String
    private(set) var seeds: [MobileSyncFuzzSeed] = []
    var backup: String { base + "/backup" }
    var outside: String { base + "/outside" }
    var root: String { base + "/outer/root" }
    private let watchdog: FuzzWatchdog
    /// Bytes no restored file may hold: the secret behind the mutator's symlinks, and this process's environment
    /// (`/proc/self/environ`, the other target).
    private let forbidden: [[UInt8]] = [MobileSyncMutator.secret, Array("DEVICECTL_NOW=".utf8)]

    init(config: FuzzConfig) throws {
        self.config = config
        base = try makeTemporaryDirectory(inMemory: true)
        watchdog = FuzzWatchdog(hardLimit: config.hardLimit)
        try Sentinel.make(at: base + "/sentinel")
        try FileManager.default.createDirectory(atPath: base + "/outer", withIntermediateDirectories: true)
        try makeSeeds()
    }

    deinit {
        watchdog.stop()
        removeTree(base)
    }

    /// A device with an app, its group and widget, documents (nested, a symlink, a hard link, an attribute), backed up
    /// plain and encrypted (low key-derivation counts) with the engine in process.
    private func makeSeeds() throws {
        let phone = base + "/seeds/phone"
        try FuzzSeeds.makeDevice(phone)
        let data = try PhoneScratch.dataContainer(phone)
        try FileManager.default.createDirectory(atPath: data + "/Documents/a/b", withIntermediateDirectories: true)
        try Data("nested\n".utf8).write(to: URL(fileURLWithPath: data + "/Documents/a/b/c.txt"))
        try Data().write(to: URL(fileURLWithPath: data + "/Documents/empty"))
        try Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) }).write(
            to: URL(fileURLWithPath: data + "/Documents/a/blob.bin"))
        symlink("a/b/c.txt", data + "/Documents/link")
        link(data + "/Documents/a/b/c.txt", data + "/Documents/hard")
        try ExtendedAttributes.set("user.note", to: Array("kept".utf8), at: data + "/Documents/a/blob.bin")
        try FuzzSeeds.pinTimes(phone)
        for (name, password) in [("plain", nil), ("encrypted", "fuzz")] as [(String, String?)] {
            let path = base + "/seeds/" + name
            var request = BackupRequest(
                root: phone, output: .file(path), created: FuzzSeeds.created, tool: "devicectl fuzz", format: .mobileSync)
            request.engine = .computer
            if let password {
                request.password = BackupPassword(bytes: Array(password.utf8), sha256Iterations: 1, sha1Iterations: 1)
            }
            _ = try BackupEngine.backup(request, warning: { _ in })
            seeds.append(MobileSyncFuzzSeed(name: name, path: path, password: password))
        }
        removeTree(phone)
    }

    // MARK: - Running

    static let reportEvery = 200

    /// A run's summary in this fuzzer's terms (its counts: verify passed, restore refused, restored with problems).
    static func describe(_ summary: FuzzSummary) -> String {
        "\(summary.cases) cases in \(Int(summary.seconds)) s: \(summary.verifiedRestores) passed verify, "
            + "\(summary.cleanFailures) restores refused, \(summary.unverifiedRestores) restored with problems verify "
            + "names, \(summary.repeatedRestores) restored twice; "
            + "slowest case \(summary.slowest.index) (\(String(format: "%.2f", summary.slowest.seconds)) s); "
            + "\(summary.findings.count) findings"
    }

    /// Case `index`'s backup at `backup`: a copy of its seed, mutated. Returns the seed and the steps taken.
    func prepare(_ index: Int) throws -> (MobileSyncFuzzSeed, [String]) {
        for path in [backup, outside, root] { removeTree(path) }
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try Data(MobileSyncMutator.secret).write(to: URL(fileURLWithPath: outside + "/" + MobileSyncMutator.secretName))
        var rng = SeededGenerator(seed: config.seed &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(index) ^ 0x4D53)
        let seed = seeds[Int(rng.next() % UInt64(seeds.count))]
        let copied = try Shell.run("cp", ["-a", seed.path, backup])
        guard copied.status == 0 else { throw FuzzSetupError("cp: \(copied.stderr)") }
        var mutator = MobileSyncMutator(seed: rng.next(), encrypted: seed.password != nil, outside: outside)
        try mutator.mutate(backup)
        return (seed, mutator.steps)
    }

    func runCase(_ index: Int, into summary: inout FuzzSummary) throws {
        watchdog.begin("case \(index), while it was being prepared")
        let (seed, steps) = try prepare(index)
        let label = "case \(index) (\(seed.name): \(steps.joined(separator: "; ")))"
        if config.only != nil { FuzzWatchdog.report("fuzz: \(label)") }
        let backupBefore = try TreeSnapshot.take(backup)
        let outsideBefore = try outsideSnapshot()
        var problems: [String] = []
        var environment = ["DEVICECTL_NOW": "2026-12-01T09:00:00Z"]
        if let password = seed.password { environment["DEVICECTL_BACKUP_PASSWORD"] = password }

        watchdog.begin("\(label), input in \(backup)")
        defer { watchdog.end() }
        var statuses: [String: Int32] = [:]
        var restoreError = ""
        for command in [["verify", backup], ["list", backup], ["restore", backup, root]] {
            let started = MonotonicClock.seconds()
            let child = try ChildProcess.devicectl(command, environment: environment)
            guard child.finish(within: config.hardLimit) else {
                problems.append("devicectl \(command[0]) did not finish in \(config.hardLimit) s")
                continue
            }
            if MonotonicClock.seconds() - started > config.caseBudget {
                problems.append("devicectl \(command[0]) took more than \(config.caseBudget) s")
            }
            statuses[command[0]] = child.killedBy == nil ? child.status : -1
            if command[0] == "restore" && child.status != 0 { restoreError = child.stderr }
            problems += FuzzCases.problems(of: child, command[0])
        }
        if statuses["verify"] == 0 {
            summary.verifiedRestores += 1
            if statuses["list"] != 0 { problems.append("verify passes but list fails") }
            if statuses["restore"] != 0 { problems.append("verify passes but restore fails") }
        }
        let restored = FileManager.default.fileExists(atPath: root)
        if statuses["restore"] == 0 {
            if !restored { problems.append("restore succeeded but made no ROOT") }
            if statuses["verify"] != 0 { summary.unverifiedRestores += 1 }
            problems += try restoredTreeProblems()
        } else {
            summary.cleanFailures += 1
            if restored { problems.append("the failed restore left \(root) behind") }
        }
        if config.repeatEvery > 0 && index % config.repeatEvery == 0, let first = statuses["restore"] {
            summary.repeatedRestores += 1
            problems += try repeatRestore(first, restoreError, environment)
        }
        let backupAfter = try TreeSnapshot.take(backup)
        if backupAfter != backupBefore {
            problems.append("DIR changed: \(snapshotDifference(backupBefore, backupAfter))")
        }
        let outsideAfter = try outsideSnapshot()
        if outsideAfter != outsideBefore {
            problems.append("something outside ROOT changed: \(outsideAfter.differences(from: outsideBefore).prefix(5))")
        }
        record(index, seed, steps, problems, into: &summary)
    }

    /// Restores DIR again onto an absent ROOT: it must end as the first restore did (its exit status; a failure's
    /// message, which names DIR and ROOT, the same). ROOT is absent afterwards.
    private func repeatRestore(_ status: Int32, _ error: String, _ environment: [String: String]) throws -> [String] {
        removeTree(root)
        let child = try ChildProcess.devicectl(["restore", backup, root], environment: environment)
        guard child.finish(within: config.hardLimit) else {
            return ["devicectl restore did not finish in \(config.hardLimit) s when run again"]
        }
        defer { removeTree(root) }
        let again = child.killedBy == nil ? child.status : -1
        if again != status {
            return [
                "restored again, it exited \(again) after \(status): \(child.stderr.prefix(2000)) | first: \(error.prefix(2000))"
            ]
        }
        if status != 0 && child.stderr != error {
            return ["restored again, it failed differently: \(error.prefix(2000)) | then: \(child.stderr.prefix(2000))"]
        }
        return []
    }

    /// What is wrong with a restored ROOT: an entry that is not a file, directory or symlink, a symlink that leaves
    /// ROOT (absolute, or `..` past its top), a file holding forbidden bytes.
    private func restoredTreeProblems() throws -> [String] {
        var problems: [String] = []
        let snapshot = try TreeSnapshot(root)
        for (path, entry) in snapshot.entries.sorted(by: { $0.key < $1.key }) {
            switch entry.kind {
            case .regular:
                let bytes = try FileDescriptor.open(root + "/" + path, flags: O_RDONLY).readAll()
                for marker in forbidden where FuzzBytes.contains(bytes, marker) {
                    problems.append("\(path) holds bytes from outside the backup (\(String(decoding: marker, as: UTF8.self)))")
                }
            case .directory:
                break
            case .symlink:
                if let escape = Self.escapes(link: path, target: entry.target ?? "") {
                    problems.append("\(path) -> \(entry.target ?? ""): \(escape)")
                }
            default:
                problems.append("\(path) is a \(entry.kind), not a file, directory or symlink")
            }
        }
        return problems
    }

    /// Why a symlink at `link` (relative to ROOT) with `target` leaves ROOT, or nil when it stays inside.
    static func escapes(link: String, target: String) -> String? {
        if target.hasPrefix("/") { return "an absolute target" }
        var components = link.split(separator: "/").dropLast().map(String.init)
        for part in target.split(separator: "/") {
            if part == ".." {
                if components.isEmpty { return "its target leaves ROOT" }
                components.removeLast()
            } else if part != "." {
                components.append(String(part))
            }
        }
        return nil
    }

    /// Everything in the scratch area but DIR, ROOT and the seeds; ROOT's parent without its mtime (a restore builds
    /// the device beside ROOT and renames it into place).
    private func outsideSnapshot() throws -> TreeSnapshot {
        try TreeSnapshot(base) { $0 == "backup" || $0 == "outer/root" || $0 == "seeds" }.ignoringMtimes { $0 == "outer" || $0 == "." }
    }

    private func record(
        _ index: Int, _ seed: MobileSyncFuzzSeed, _ steps: [String], _ problems: [String], into summary: inout FuzzSummary
    ) {
        guard !problems.isEmpty else { return }
        let finding = FuzzFinding(index: index, seed: seed.name, steps: steps, problem: problems.joined(separator: " | "))
        summary.findings.append(finding)
        if let artifacts = config.artifacts {
            let directory = "\(artifacts)/mobilesync-case-\(index)"
            removeTree(directory)
            try? FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
            _ = try? Shell.run("cp", ["-a", backup, directory])
            try? Data("\(finding)\n".utf8).write(to: URL(fileURLWithPath: "\(directory).txt"))
        }
    }
}
