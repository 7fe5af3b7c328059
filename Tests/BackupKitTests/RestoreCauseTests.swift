// RestoreCauseTests: a failed restore keeps the error it failed with as a typed value, and says it as before.
@testable import BackupKit
import DeviceKit
import Foundation
import Glibc
import SystemKit
import TarKit
import TestSupport
import Testing

@Suite struct RestoreCauseTests {
    static let staging = "/phones/new/.devicectl-restore-0123"

    /// A system call failed on a staged file: the error keeps the call, the staging path and the errno; the text
    /// names the file by its place in the archive.
    @Test func aStepThatFailsOnASystemCallKeepsTheSystemError() throws {
        let failure = SystemError("openat2", path: Self.staging + "/Library/SpringBoard/IconState.plist", code: EACCES)
        let error = RestoreError.setup(.placeWidgets, cause: RestoreCause(failure, staging: Self.staging))
        guard case .setup(.placeWidgets, let cause) = error else { Issue.record("\(error)"); return }
        #expect(cause.systemError == failure)
        #expect(cause.systemError?.code == EACCES)
        #expect(cause.systemError?.path == Self.staging + "/Library/SpringBoard/IconState.plist")
        #expect(
            error.description
                == "cannot place the restored widgets: the archive's Library/SpringBoard/IconState.plist: cannot open "
                + "it: permission denied; nothing was restored")
    }

    /// A device error on a staged plist keeps its case and path; only its text names the archive's file.
    @Test func aDeviceErrorOnAStagedFileIsNamedAsTheArchivesFile() throws {
        let path = Self.staging + "/Containers/Data/Application/A/.com.apple.mobile_container_manager.metadata.plist"
        let failure = DeviceError.malformedPlist(path: path, reason: "not a property list")
        let error = RestoreError.setup(.reinstallApp("com.example.news"), cause: RestoreCause(failure, staging: Self.staging))
        guard case .setup(_, let cause) = error else { Issue.record("\(error)"); return }
        #expect(cause.error as? DeviceError == failure)
        #expect(
            error.message
                == "bad manifest (cannot reinstall app 'com.example.news': the archive's Containers/Data/Application/A/"
                + ".com.apple.mobile_container_manager.metadata.plist: malformed property list (not a property list))")
    }

    /// Only paths below the staging directory are renamed: the directory itself and paths elsewhere are shown as
    /// they are, and a cause outside the staging directory is its own text.
    @Test func pathsOutsideTheStagingDirectoryAreShownAsTheyAre() throws {
        let cause = RestoreCause(SystemError("mkdirat", path: Self.staging, code: ENOSPC), staging: Self.staging)
        #expect(cause.description == "\(Self.staging): cannot create it: no space left on device")
        #expect(cause.shown("/elsewhere/a") == "/elsewhere/a")
        #expect(cause.shown(Self.staging + "-other/a") == Self.staging + "-other/a")
        #expect(cause.shown(Self.staging + "/a/b") == "the archive's a/b")
        let problem = RestoreCause(MemberPathProblem.empty)
        #expect(problem.description == "\(MemberPathProblem.empty)")
    }

    /// Causes compare by value when their type is Equatable (an errno apart is another error).
    @Test func causesCompareByTheirTypedValue() throws {
        let eacces = RestoreCause(SystemError("openat", path: "a", code: EACCES), staging: Self.staging)
        #expect(eacces == RestoreCause(SystemError("openat", path: "a", code: EACCES), staging: Self.staging))
        #expect(eacces != RestoreCause(SystemError("openat", path: "a", code: EIO), staging: Self.staging))
        #expect(eacces != RestoreCause(SystemError("openat", path: "a", code: EACCES)))
        #expect(eacces != RestoreCause(DeviceError.notADevice("a"), staging: Self.staging))
    }

    /// Another layer's error reaching the restore is kept as thrown (`failed`), a failed call as `system` with its
    /// errno; the text is the error's own, as before.
    @Test func translateKeepsTheErrorItWraps() throws {
        let failure = SystemError("write", path: "Documents/a.txt", code: ENOSPC)
        #expect(ArchiveRestore.translate(failure) as? RestoreError == .system(failure))
        let digest = DigestError("EVP_DigestInit_ex")
        let translated = try #require(ArchiveRestore.translate(digest) as? RestoreError)
        guard case .failed(let cause) = translated else { Issue.record("\(translated)"); return }
        #expect((cause.error as? DigestError)?.call == "EVP_DigestInit_ex")
        #expect(translated.description == "\(digest); nothing was restored")
    }

    /// A manifest line that does not parse keeps its line number and the parser's error apart.
    @Test func aBadManifestLineKeepsItsLineAndError() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            var builder = TarBuilder()
            builder.add(.directory("Documents"))
            builder.add(.file(".devicectl-manifest.jsonl", Array("[1,2,3]\n".utf8)))
            builder.end()
            try scratch.write(builder.bytes)
            let error = #expect(throws: RestoreError.self) { try scratch.restore() }
            guard case .badManifest(.unparsable(let line, let parse))? = error else { Issue.record("\(String(describing: error))"); return }
            #expect(line == 1)
            #expect(error?.message == "bad manifest (line 1: \(parse))")
        }
    }

    /// The target flags a directory below a path the archive holds as a file: the restore fails in the step that
    /// keeps the flagged directory, with the refusal as its typed cause, said once (it said "nothing was restored"
    /// twice, and called the device's directory an archive member).
    @Test func aFlaggedDirectoryThatCannotBeKeptNamesTheStepAndKeepsTheRefusal() throws {
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            try BackupExclusion.add(try TreeBuilder(root: scratch.root).directory("Media/Photos"))
            try scratch.write(TarBuilder.archive([.file("Media", Array("not a directory".utf8))]))
            let before = try scratch.snapshot()
            let error = #expect(throws: RestoreError.self) { try scratch.restore() }
            guard case .setup(.keepFlaggedDirectory("Media/Photos"), let cause)? = error else {
                Issue.record("\(String(describing: error))")
                return
            }
            guard case .refusedMember("Media/Photos", let reason, _)? = cause.error as? RestoreError else {
                Issue.record("\(cause.error)")
                return
            }
            #expect(cause.staging?.contains(".devicectl-") == true)
            #expect(
                error?.description
                    == "cannot keep the device's 'Media/Photos' (excluded from backup on this device): \(reason); "
                    + "nothing was restored")
            #expect(try scratch.snapshot() == before)
        }
    }
}
