// ArchiveFuzzer: runs mutated archives through verify and restore (in process, fast) and, for a sample,
// through the devicectl binary, and checks the properties every archive must have:
//   no crash, no hang (time per case bounded), nothing written outside ROOT (a sentinel tree and ROOT's
//   parent compared before and after), and either a clean failure with ROOT exactly as before, or a restore
//   that verify agrees with, whose tree equals the restore of the intact archive (or, without a manifest,
//   a restore that says it verified nothing).
import BackupKit
import DeviceKit
import Foundation
import Glibc
import SystemKit
import TarKit
import TestSupport

/// One property a case broke.
struct FuzzFinding: CustomStringConvertible {
    let index: Int
    let seed: String
    let steps: [String]
    let problem: String

    var description: String {
        "case \(index) (\(seed): \(steps.joined(separator: "; "))): \(problem)"
    }
}

/// What a fuzz run did.
struct FuzzSummary: CustomStringConvertible {
    var cases = 0
    var verifiedRestores = 0
    var unverifiedRestores = 0
    var cleanFailures = 0
    var binaryRuns = 0
    var repeatedRestores = 0
    var findings: [FuzzFinding] = []
    var seconds = 0.0
    var slowest = (index: -1, seconds: 0.0)

    var description: String {
        "\(cases) cases in \(String(format: "%.1f", seconds)) s (\(String(format: "%.0f", Double(cases) / max(seconds, 0.001))) /s): "
            + "\(cleanFailures) clean failures, \(verifiedRestores) verified restores, \(unverifiedRestores) restores without a "
            + "manifest, \(binaryRuns) binary samples, \(repeatedRestores) restored twice; "
            + "slowest case \(slowest.index) (\(String(format: "%.3f", slowest.seconds)) s); "
            + "\(findings.count) findings"
    }
}

final class ArchiveFuzzer: CaseFuzzer {
    let config: FuzzConfig
    let seeds: [FuzzSeed]
    /// The scratch area (tmpfs): `sentinel/`, `outer/root` (a fresh device), `archive.tar`.
    let base: String
    /// A pristine copy of the fresh device (outside `base`), to reset ROOT after a successful restore.
    let pristine: String
    var root: String { base + "/outer/root" }
    var archive: String { base + "/archive.tar" }
    var binaryRoot: String { base + "/outer/restored-by-binary" }
    private var references: [String: [String: String]] = [:]
    private var rootBefore: [String: String] = [:]
    private var outsideBefore: [String: String] = [:]
    private let watchdog: FuzzWatchdog

    init(config: FuzzConfig) throws {
        self.config = config
        base = try makeTemporaryDirectory(inMemory: true)
        pristine = try makeTemporaryDirectory(inMemory: true)
        watchdog = FuzzWatchdog(hardLimit: config.hardLimit)
        try FileManager.default.createDirectory(atPath: base + "/seeds", withIntermediateDirectories: true)
        seeds = try FuzzSeeds.make(in: base + "/seeds")
        removeTree(base + "/seeds")
        try Sentinel.make(at: base + "/sentinel")
        try FileManager.default.createDirectory(atPath: base + "/outer", withIntermediateDirectories: true)
        let made = try DevicectlBinary.run(["init", pristine + "/root"])
        guard made.status == 0 else { throw FuzzSetupError("devicectl init: \(made.stderr)") }
        try resetRoot()
        rootBefore = try TreeSnapshot.take(root)
        for seed in seeds {
            try write(seed.bytes)
            let report = try restore(deadline: .infinity)
            guard report.verified == seed.hasManifest else {
                throw FuzzSetupError("seed \(seed.name) restored with verified=\(report.verified)")
            }
            references[seed.name] = try comparable()
            try resetRoot()
        }
        outsideBefore = try outside()
    }

    deinit {
        watchdog.stop()
        removeTree(base)
        removeTree(pristine)
    }

    // MARK: - Running

    static let reportEvery = 1000

    static func describe(_ summary: FuzzSummary) -> String { summary.description }

    /// The mutation of case `index`: the seed it starts from and the steps taken.
    func mutation(_ index: Int) -> (seed: FuzzSeed, bytes: [UInt8], steps: [String]) {
        var mutator = ArchiveMutator(
            seed: config.seed &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(index), donors: seeds.filter(\.plain).map(\.bytes))
        let seed = seeds[Int(mutator.rng.next() % UInt64(seeds.count))]
        let bytes = mutator.mutate(seed.bytes, plain: seed.plain)
        return (seed, bytes, mutator.steps)
    }

    func runCase(_ index: Int, into summary: inout FuzzSummary) throws {
        let (seed, bytes, steps) = mutation(index)
        if config.only != nil {
            FuzzWatchdog.report("fuzz: case \(index): \(seed.name): \(steps.joined(separator: "; "))")
        }
        var problems: [String] = []
        try write(bytes)
        watchdog.begin("case \(index) (\(seed.name): \(steps.joined(separator: "; "))), input in \(archive)")
        defer { watchdog.end() }

        let verifyStart = MonotonicClock.seconds()
        let deadline = verifyStart + config.caseBudget
        var verified: VerifyReport?
        do {
            verified = try ArchiveVerification.verify(archive: archive, problemLimit: 20) {
                MonotonicClock.seconds() > deadline ? SIGALRM : nil
            }
        } catch is ArchiveReaderError {
            // The stream is damaged before its first member: verify reports it by throwing (not valid).
        } catch {
            problems.append("verify threw \(type(of: error)): \(error)")
        }
        let verifyValid = verified?.isValid ?? false
        let verifyHasManifest = verified?.hasManifest ?? false
        if MonotonicClock.seconds() > deadline { problems.append("verify took more than \(config.caseBudget) s") }

        let restoreDeadline = MonotonicClock.seconds() + config.caseBudget
        var outcome: Result<RestoreReport, any Error>
        do {
            outcome = .success(try restore(deadline: restoreDeadline))
        } catch {
            outcome = .failure(error)
        }
        if MonotonicClock.seconds() > restoreDeadline { problems.append("restore took more than \(config.caseBudget) s") }

        let outsideAfter = try outside()
        if outsideAfter != outsideBefore {
            problems.append("something outside ROOT changed: \(snapshotDifference(outsideBefore, outsideAfter))")
        }
        let repeats = config.repeatEvery > 0 && index % config.repeatEvery == 0
        var restoredTree: [String: String]?
        switch outcome {
        case .failure(let error):
            summary.cleanFailures += 1
            if !(error is RestoreError) {
                problems.append("restore failed with a \(type(of: error)), not a RestoreError: \(error)")
            }
            if "\(error)".isEmpty { problems.append("restore failed without a message") }
            let after = try TreeSnapshot.take(root)
            if after != rootBefore {
                problems.append("the failed restore changed ROOT: \(snapshotDifference(rootBefore, after))")
            }
            if verifyValid { problems.append("verify passes but restore fails: \(error)") }
        case .success(let report):
            if report.verified {
                summary.verifiedRestores += 1
                if !verifyValid {
                    problems.append("restore verified an archive verify rejects: \(verified?.problems.prefix(3) ?? [])")
                }
                // Without a members line the manifest vouches for the files' paths, sizes and contents alone (the
                // report says so: `metadataVerified` false): a mode or a time the archive altered is restored as it
                // says, and only the contents are compared.
                let restored = try comparable()
                restoredTree = restored
                if let reference = references[seed.name] {
                    let (mine, theirs) =
                        report.metadataVerified
                        ? (restored, reference) : (Self.contents(restored), Self.contents(reference))
                    if mine != theirs {
                        problems.append(
                            "the restored tree differs from the intact archive's"
                                + (report.metadataVerified ? "" : " (file contents; no members line)")
                                + ": \(snapshotDifference(theirs, mine))")
                    }
                }
            } else {
                summary.unverifiedRestores += 1
                if verifyHasManifest { problems.append("restore verified nothing, but verify found a manifest") }
                if repeats { restoredTree = try comparable() }
            }
            try resetRoot()
            outsideBefore = try outside()
        }
        if repeats {
            summary.repeatedRestores += 1
            problems += try repeatRestore(outcome, restoredTree)
        }
        if config.binaryEvery > 0 && index % config.binaryEvery == 0 {
            summary.binaryRuns += 1
            problems += try binarySample(index, verifyValid: verifyValid, restored: (try? outcome.get()) != nil)
        }
        record(index, seed, steps, bytes, problems, into: &summary)
    }

    /// Restores the case's archive again (ROOT as it was before the first) and compares the outcome with the first
    /// one's: the same failure message, or a restore with the same verdict and tree.
    private func repeatRestore(_ first: Result<RestoreReport, any Error>, _ firstTree: [String: String]?) throws
        -> [String]
    {
        let second: Result<RestoreReport, any Error>
        do {
            second = .success(try restore(deadline: MonotonicClock.seconds() + config.caseBudget))
        } catch {
            second = .failure(error)
        }
        let problems = try compare(first, firstTree, second)
        try resetRoot()
        outsideBefore = try outside()
        return problems
    }

    /// What differs between a restore's outcome and its repeat's (ROOT as the repeat left it).
    private func compare(
        _ first: Result<RestoreReport, any Error>, _ firstTree: [String: String]?,
        _ second: Result<RestoreReport, any Error>
    ) throws -> [String] {
        switch (first, second) {
        case (.failure(let one), .failure(let two)):
            return "\(one)" == "\(two)" ? [] : ["restored again, it failed differently: \(one) | then: \(two)"]
        case (.success(let one), .success(let two)):
            guard one.verified == two.verified, one.metadataVerified == two.metadataVerified else {
                return ["restored again, its verdict changed: verified \(one.verified) then \(two.verified)"]
            }
            // A directory no member names (only its contents), as an archive without a manifest may leave out, is
            // made at the time of the restore.
            let made = one.verified ? { $0 } : Self.withoutDirectoryTimes
            let (tree, before) = (made(try comparable()), made(firstTree ?? [:]))
            return tree == before ? [] : ["restored again, the tree differs: \(snapshotDifference(before, tree))"]
        case (.failure(let one), .success):
            return ["restored again, it succeeded after failing: \(one)"]
        case (.success, .failure(let two)):
            return ["restored again, it failed after succeeding: \(two)"]
        }
    }

    /// The same archive through the built binary: verify, restore onto a path that does not exist yet, list.
    private func binarySample(_ index: Int, verifyValid: Bool, restored: Bool) throws -> [String] {
        var problems: [String] = []
        // Every other sample reads the archive from standard input (`-`), as a pipe would give it.
        let fromStdin = index / max(1, config.binaryEvery) % 2 == 1
        let source = fromStdin ? "-" : archive
        let commands: [([String], Bool?)] = [
            (["verify", source], verifyValid), (["restore", source, binaryRoot], restored), (["list", source], nil),
        ]
        for (command, expectSuccess) in commands {
            let child = try ChildProcess.devicectl(
                command, environment: ["DEVICECTL_NOW": "2026-12-01T09:00:00Z"], stdin: fromStdin ? archive : nil)
            guard child.finish(within: config.hardLimit) else {
                problems.append("devicectl \(command[0]) did not finish in \(config.hardLimit) s")
                continue
            }
            let stderr = child.stderr
            problems += FuzzCases.problems(of: child, command[0])
            if let expectSuccess, (child.status == 0) != expectSuccess {
                problems.append(
                    "devicectl \(command[0]) exited \(child.status) but the engine \(expectSuccess ? "succeeded" : "failed"): \(stderr)"
                )
            }
        }
        let left = FileManager.default.fileExists(atPath: binaryRoot)
        if left && !restored { problems.append("the failed restore left \(binaryRoot) behind") }
        if left { removeTree(binaryRoot) }
        let after = try outside()
        if left {
            // A restore that made ROOT changed ROOT's parent by design: compare everything else, then accept it.
            if after.filter({ $0.key != "outer" }) != outsideBefore.filter({ $0.key != "outer" }) {
                problems.append("devicectl wrote outside ROOT: \(snapshotDifference(outsideBefore, after))")
            }
            outsideBefore = after
        } else if after != outsideBefore {
            problems.append("devicectl changed something outside ROOT: \(snapshotDifference(outsideBefore, after))")
        }
        return problems
    }

    private func record(
        _ index: Int, _ seed: FuzzSeed, _ steps: [String], _ bytes: [UInt8], _ problems: [String],
        into summary: inout FuzzSummary
    ) {
        guard !problems.isEmpty else { return }
        let finding = FuzzFinding(
            index: index, seed: seed.name, steps: steps, problem: problems.joined(separator: " | "))
        summary.findings.append(finding)
        if let artifacts = config.artifacts {
            try? FileManager.default.createDirectory(atPath: artifacts, withIntermediateDirectories: true)
            try? Data(bytes).write(to: URL(fileURLWithPath: "\(artifacts)/case-\(index).tar"))
            try? Data("\(finding)\n".utf8).write(to: URL(fileURLWithPath: "\(artifacts)/case-\(index).txt"))
        }
    }

    // MARK: - Scratch

    private func restore(deadline: Double) throws -> RestoreReport {
        var options = RestoreOptions()
        options.syncsBeforeMove = false
        options.interruption = { MonotonicClock.seconds() > deadline ? SIGALRM : nil }
        options.now = FuzzSeeds.created
        return try ArchiveRestore.restore(archive: archive, root: root, options: options)
    }

    private func write(_ bytes: [UInt8]) throws {
        let fd = try FileDescriptor.open(archive, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644)
        try fd.write(bytes)
        try fd.close()
    }

    /// Everything in the scratch area but ROOT and the archive: must never change.
    private func outside() throws -> [String: String] {
        try TreeSnapshot.take(base) { $0 == "outer/root" || $0 == "archive.tar" }
    }

    /// The regular files of a snapshot and their sizes and contents (`size=N sha=HEX`), nothing else.
    static func contents(_ snapshot: [String: String]) -> [String: String] {
        snapshot.compactMapValues { line in
            line.firstMatch(of: /size=[0-9]+ sha=[0-9a-f]+/).map { String($0.output) }
        }
    }

    /// A snapshot without its directories' mtimes.
    static func withoutDirectoryTimes(_ snapshot: [String: String]) -> [String: String] {
        snapshot.mapValues { $0.hasPrefix("directory ") ? $0.replacing(#/ mtime=[0-9.]+/#, with: "") : $0 }
    }

    /// ROOT as any restore of a given archive leaves it (see `PhoneScratch.restoredContent`).
    private func comparable() throws -> [String: String] {
        try PhoneScratch.restoredContent(root)
    }

    private func resetRoot() throws {
        let result = try Shell.run(
            "/bin/sh", ["-c", "rm -rf \"$1\" && cp -a \"$2\" \"$1\"", "sh", root, pristine + "/root"])
        guard result.status == 0 else { throw FuzzSetupError("reset ROOT: \(result.stderr)") }
    }
}
