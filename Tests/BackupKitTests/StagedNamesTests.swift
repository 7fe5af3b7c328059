// StagedNamesTests: what restore's staging tree refuses when it creates a member (a second directory, a member where
// another stands, a member below a file or a symlink, a hard link to no earlier regular file, a file where the set-up
// makes a directory), verify names with the same reason, also when the manifest's members digest covers it (a fuzzed
// archive restore refused and verify passed: a directory member twice).
import BackupKit
import Foundation
import TarKit
import TestSupport
import Testing

@Suite struct StagedNamesTests {
    static let conflict = "at a path an earlier member already created (duplicate or conflicting member)"
    static let through = "its path goes through a symlink or something that is not a directory"

    /// Hostile layouts, each with the member restore refuses and its reason.
    static let refused: [(members: [TestMember], member: String, reason: String)] = [
        ([.directory("a"), .directory("a")], "a", "duplicate directory member"),
        ([.file("a", [1]), .file("a", [2])], "a", "a file \(conflict)"),
        ([.file("a", [1]), .directory("a")], "a", "a directory \(conflict)"),
        ([.file("a/b", [1]), .file("a", [2])], "a", "a file \(conflict)"),
        ([.directory("a"), .symlink("a", "b")], "a", "a symlink \(conflict)"),
        ([.file("a", [1]), .file("a/b", [2])], "a/b", through),
        ([.directory("b"), .symlink("a", "b"), .file("a/c", [1])], "a/c", through),
        ([.hardlink("b", "a")], "b", "hard link target 'a' is not a file restored by an earlier member"),
        ([.directory("a"), .hardlink("b", "a")], "b", "hard link target 'a' is a directory, not a regular file"),
        ([.symlink("s", "x"), .hardlink("b", "s")], "b", "hard link target 's' is a symlink, not a regular file"),
        ([.file("f", [1]), .hardlink("b", "f/g")], "b", "hard link target 'f/g': \(through)"),
        ([.file("a", [1]), .file("b", [2]), .hardlink("b", "a")], "b", "a hard link \(conflict)"),
    ]

    /// Verify names the member as the archive does (a directory with its `/`); restore, pinned (every path created
    /// on one thread in the archive's order), refuses the same member for the same reason. Unpinned it refuses too,
    /// though a file queued for the writer may be the one found in the way (`a` then `a/b`: the reader makes `a` a
    /// directory for `a/b` before the writer creates the file).
    @Test(arguments: refused.indices) func verifyNamesWhatRestoreRefuses(index: Int) throws {
        let layout = Self.refused[index]
        let bytes = TarBuilder.archive(layout.members)
        let report = try VerifyTests.verify(bytes)
        // The refused member is the last one of each layout.
        let written = if case .directory = layout.members.last { true } else { false }
        #expect(
            report.problems == ["member '\(layout.member)\(written ? "/" : "")': \(layout.reason) (restore refuses it)"])
        for pinned in [true, false] {
            try withTemporaryDirectory { base in
                let scratch = try RestoreScratch(base: base)
                try scratch.write(bytes)
                let before = try scratch.snapshot()
                #expect {
                    try scratch.restore { $0.pinsThreads = pinned }
                } throws: { error in
                    guard case RestoreError.refusedMember(let member, let reason, _) = error else { return false }
                    return !pinned || (member == layout.member && reason == layout.reason)
                }
                #expect(try scratch.snapshot() == before)
            }
        }
    }

    /// Layouts restore stages: a directory member adopting a parent an earlier file made, hard links to files made
    /// by a member or by another hard link.
    @Test func verifyPassesWhatRestoreStages() throws {
        let bytes = TarBuilder.archive([
            .file("a/b", [1]), .directory("a"), .file("c", [2]), .hardlink("d", "c"), .hardlink("a/e", "d"),
        ])
        #expect(try VerifyTests.verify(bytes).problems == [])
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            try scratch.write(bytes)
            try scratch.restore()
        }
    }

    /// A file where restore's set-up makes a directory (SpringBoard's, a container class's): restore refuses it
    /// once its members are staged, and verify says so.
    @Test func aFileWhereTheSetUpMakesADirectory() throws {
        for path in ["Library/SpringBoard", "Containers/Data", "Containers/Shared/AppGroup"] {
            let bytes = TarBuilder.archive([.file(path, [1])])
            let problems = try VerifyTests.verify(bytes).problems
            #expect(!problems.isEmpty, "\(path)")
            #expect(problems.allSatisfy { $0.hasSuffix(": \(Self.through) (restore refuses it)") }, "\(problems)")
            try withTemporaryDirectory { base in
                let scratch = try RestoreScratch(base: base)
                try scratch.write(bytes)
                #expect {
                    try scratch.restore()
                } throws: { error in
                    guard case RestoreError.refusedMember(_, let reason, _) = error else { return false }
                    return reason == Self.through
                }
            }
        }
    }
}
