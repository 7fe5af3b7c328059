// BackupScannerTests: the count behind backup's percentage agrees with what the backup stores, under every
// counting policy, and the share done it yields.
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
    /// tests keep both cores) counts what the backup stores: hard links once, exclusions applied.
    @Test func theCountIsWhatTheBackupStores() throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/src"
            try makeTree(root)
            let rules = ExclusionRules(deviceRoot: false, patterns: [try ExclusionPattern("*.log")])
            let scanner = BackupScanner(root: root, rules: rules, ignoring: [], oneFileSystem: false, whenIdle: false)
            let total = try #require(scanner.waitForTotal())
            let summary = try BackupEngine.backup(
                try request(root, "\(dir)/out.tar", counting: .off), progress: nil, warning: { _ in })
            #expect(total == BackupTotal(files: summary.files, bytes: summary.bytes))
            #expect(total == BackupTotal(files: 2, bytes: 4 + 6))
        }
    }

    /// A root that cannot be walked leaves no total, and the thread still ends.
    @Test func anUnwalkableRootLeavesNoTotal() throws {
        try withTemporaryDirectory { dir in
            let scanner = BackupScanner(
                root: "\(dir)/missing", rules: ExclusionRules(deviceRoot: false), ignoring: [], oneFileSystem: false,
                whenIdle: false)
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
                root: tree.root, rules: ExclusionRules(deviceRoot: false), ignoring: [], oneFileSystem: false,
                stopWhen: { stopped.check() })
            #expect(total == nil)
            #expect(stopped.calls == 11, "the walk ends at the entry after the flag is raised")
            let scanner = BackupScanner(
                root: tree.root, rules: ExclusionRules(deviceRoot: false), ignoring: [], oneFileSystem: false,
                whenIdle: false)
            scanner.stop()
            #expect(scanner.total == nil || scanner.total == BackupTotal(files: 2000, bytes: 2000))
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
                #expect(reports.allSatisfy { $0.total == BackupTotal(files: summary.files, bytes: summary.bytes) })
                #expect(reports.allSatisfy { !$0.counting })
                #expect(last.fraction == 1)
            } else {
                #expect(reports.allSatisfy { $0.total == nil && !$0.counting && $0.fraction == nil })
            }
        }
    }

    /// The share done weighs each file as 16 KiB beside its bytes, and never passes 1.
    @Test func theShareDoneWeighsFilesAndBytes() {
        func progress(_ files: UInt64, _ bytes: UInt64, total: BackupTotal?) -> BackupProgress {
            BackupProgress(files: files, bytes: bytes, seconds: 1, finished: false, total: total, counting: false)
        }
        let total = BackupTotal(files: 100, bytes: 100 * 16_384)
        #expect(progress(50, 0, total: total).fraction == 0.25, "half the files, none of the bytes")
        #expect(progress(0, 50 * 16_384, total: total).fraction == 0.25)
        #expect(progress(100, 100 * 16_384, total: total).fraction == 1)
        #expect(progress(120, 200 * 16_384, total: total).fraction == 1, "a tree that grew meanwhile stops at 1")
        #expect(progress(1, 1, total: nil).fraction == nil)
        #expect(progress(0, 0, total: BackupTotal(files: 0, bytes: 0)).fraction == 0)
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
