// BackupScannerTests: the count behind backup's percentage (directory listings only) is what the walk passes, under
// every counting policy, and the share done it yields.
@testable import BackupKit
import Foundation
import Glibc
import TestSupport
import Testing

@Suite struct BackupScannerTests {
    /// A tree with a pattern-excluded file, an xattr-excluded file, a cache directory and a hard link.
    private func makeTree(_ root: String) throws {
        let tree = TreeBuilder(root: root)
        try tree.file("keep/a.txt", "aaaa")
        try tree.file("keep/b.log", "bbbbbbbb")
        try tree.file("flagged.bin", "123456")
        try tree.xattr("flagged.bin", "user.com.apple.metadata:com_apple_backup_excludeItem", [1])
        try tree.file("cache/CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55")
        try tree.file("cache/blob", "zz")
        try tree.file("a/hard", "linked")
        link("\(root)/a/hard", "\(root)/a/hard2")
    }

    private func request(_ root: String, _ archive: String, counting: BackupCounting) throws -> BackupRequest {
        var request = BackupRequest(
            root: root, output: .file(archive), patterns: [try ExclusionPattern("*.log")],
            created: Date(timeIntervalSince1970: 1_800_000_000), tool: "devicectl test")
        request.counting = counting
        return request
    }

    /// The scanner's thread (pinned to the normal policy: an idle-only thread may wait for as long as parallel
    /// tests keep both cores) counts the regular files no path rule excludes: the pattern applies, while the
    /// xattr-flagged file, the tagged cache's two files and both names of the hard link count; the backup's own
    /// count of what it passed (stored, linked, excluded by attributes) agrees except for the tagged directory, which
    /// it never enters.
    @Test func theCountIsWhatTheWalkPasses() throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/src"
            try makeTree(root)
            let rules = ExclusionRules(deviceRoot: false, patterns: [try ExclusionPattern("*.log")])
            let scanner = BackupScanner(root: root, rules: rules, whenIdle: false)
            #expect(scanner.waitForTotal() == BackupTotal(files: 6))
            var last: BackupProgress?
            let summary = try BackupEngine.backup(
                try request(root, "\(dir)/out.tar", counting: .first), progress: { last = $0 }, warning: { _ in })
            #expect(summary.counts.files == 2 && summary.counts.hardlinks == 1)
            let final = try #require(last)
            #expect(final.counted == 4, "a.txt, hard, hard2 and flagged.bin")
            #expect(final.total == BackupTotal(files: 6) && final.fraction == 1)
        }
    }

    /// A root that cannot be walked leaves no total, and the thread still ends.
    @Test func anUnwalkableRootLeavesNoTotal() throws {
        try withTemporaryDirectory { dir in
            let scanner = BackupScanner(root: "\(dir)/missing", rules: ExclusionRules(deviceRoot: false), whenIdle: false)
            #expect(scanner.waitForTotal() == nil)
        }
    }

    /// Stopped at once on a large tree, the walk ends early: no total, and `stop()` returns.
    @Test func aStoppedCountEndsWithoutATotal() throws {
        try withTemporaryDirectory { dir in
            let tree = TreeBuilder(root: "\(dir)/src")
            for index in 0..<2000 { try tree.file(String(format: "d%02d/f%04d", index % 20, index), "x") }
            let stopped = BackupCounterStop()
            let total = BackupScanner.count(
                root: tree.root, rules: ExclusionRules(deviceRoot: false), stopWhen: { stopped.check() })
            #expect(total == nil)
            #expect(stopped.calls == 11, "the walk ends at the directory after the flag is raised")
            let scanner = BackupScanner(root: tree.root, rules: ExclusionRules(deviceRoot: false), whenIdle: false)
            scanner.stop()
            #expect(scanner.total == nil || scanner.total == BackupTotal(files: 2000))
        }
    }

    /// `BackupCounting.first`: every report carries the total, the last one at 100%; `.off`: none does.
    @Test(arguments: [BackupCounting.first, .off])
    func reportsCarryTheTotalWhenCountedFirst(_ counting: BackupCounting) throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/src"
            try makeTree(root)
            var reports: [BackupProgress] = []
            let summary = try BackupEngine.backup(
                try request(root, "\(dir)/out.tar", counting: counting), progress: { reports.append($0) },
                warning: { _ in })
            let last = try #require(reports.last)
            #expect(last.finished)
            if counting == .first {
                #expect(reports.allSatisfy { $0.total == BackupTotal(files: summary.counts.files + 4) }, "hard2, flagged.bin and the cache's two files")
                #expect(reports.allSatisfy { !$0.counting })
                #expect(last.fraction == 1)
            } else {
                #expect(reports.allSatisfy { $0.total == nil && !$0.counting && $0.fraction == nil })
            }
        }
    }

    /// The share done is of the counted files passed; the final report says 1 whatever the count.
    @Test func theShareIsOfTheCountedFiles() {
        func progress(_ counted: UInt64, total: BackupTotal?, finished: Bool = false) -> BackupProgress {
            BackupProgress(
                files: 0, bytes: 0, counted: counted, seconds: 1, finished: finished, total: total, counting: false)
        }
        let total = BackupTotal(files: 200)
        #expect(progress(50, total: total).fraction == 0.25)
        #expect(progress(300, total: total).fraction == 1, "a tree that grew meanwhile stops at 1")
        #expect(progress(150, total: total, finished: true).fraction == 1, "an attribute-excluded directory's files")
        #expect(progress(1, total: nil).fraction == nil)
        #expect(progress(0, total: BackupTotal(files: 0)).fraction == 1)
    }
}

/// A stop flag raised at the tenth entry, counting the checks.
private final class BackupCounterStop {
    private(set) var calls = 0

    func check() -> Bool {
        calls += 1
        return calls > 10
    }
}
