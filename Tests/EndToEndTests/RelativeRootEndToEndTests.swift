// RelativeRootEndToEndTests: ROOT means what the shell means: `b/../N` goes through `b`, `../x` is the parent's
// `x`, a symlinked parent is followed; never a textual rewrite that lands somewhere else.
import Foundation
import TestSupport
import Testing

@Suite struct RelativeRootEndToEndTests {
    /// Runs devicectl in `directory`.
    static func run(_ arguments: [String], in directory: String) throws -> RunResult {
        try Shell.run(DevicectlBinary.path, arguments, environment: ["DEVICECTL_NOW": PhoneScratch.now], directory: directory)
    }

    /// Every entry under `dir`, relative to it.
    static func entries(_ dir: String) throws -> Set<String> {
        Set(try TreeSnapshot.take(dir).keys)
    }

    @Test func dotDotThroughAMissingDirectoryIsRefusedAndCreatesNothing() throws {
        try withTemporaryDirectory { dir in
            let cwd = "\(dir)/x/a"
            try FileManager.default.createDirectory(atPath: cwd, withIntermediateDirectories: true)
            let before = try Self.entries(dir)
            for arguments in [["init", "b/../N"], ["init", "b/./N"], ["install", "b/../N", "--app", "com.example.a"]] {
                let result = try Self.run(arguments, in: cwd)
                #expect(result.status == 1, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("no such file or directory"), "\(result.stderr)")
            }
            #expect(try Self.entries(dir) == before)
            #expect(!FileManager.default.fileExists(atPath: "/N"))
        }
    }

    @Test func dotDotThroughAnExistingDirectoryGoesWhereTheKernelGoes() throws {
        try withTemporaryDirectory { dir in
            let cwd = "\(dir)/x/a"
            try FileManager.default.createDirectory(atPath: "\(cwd)/b", withIntermediateDirectories: true)
            let made = try Self.run(["init", "b/../N", "--json"], in: cwd)
            #expect(made.status == 0, "\(made.stderr)")
            #expect(try PhoneScratch.json(made)["root"] as? String == "\(cwd)/N")
            #expect(FileManager.default.fileExists(atPath: "\(cwd)/N/DeviceLocal/identity.plist"))
            let parent = try Self.run(["init", "../x2"], in: cwd)
            #expect(parent.status == 0, "\(parent.stderr)")
            #expect(FileManager.default.fileExists(atPath: "\(dir)/x/x2/DeviceLocal/identity.plist"))
            #expect(!FileManager.default.fileExists(atPath: "\(cwd)/x2"))
        }
    }

    @Test func aSymlinkedParentIsFollowedAsTheShellFollowsIt() throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(atPath: "\(dir)/real", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: "\(dir)/link", withDestinationPath: "real")
            let made = try Self.run(["init", "link/phone"], in: dir)
            #expect(made.status == 0, "\(made.stderr)")
            #expect(made.stdout.contains("\(dir)/real/phone"), "\(made.stdout)")
            let status = try Self.run(["status", "./link/../real/phone", "--json"], in: dir)
            #expect(status.status == 0, "\(status.stderr)")
        }
    }

    @Test func restoreAndBackupThroughDotDotNameTheDirectoryTheyUse() throws {
        try withTemporaryDirectory { dir in
            let cwd = "\(dir)/x/a"
            try FileManager.default.createDirectory(atPath: "\(cwd)/b", withIntermediateDirectories: true)
            #expect(try Self.run(["init", "\(dir)/x/R"], in: cwd).status == 0)
            #expect(try Self.run(["install", "../R", "--app", "com.example.news"], in: cwd).status == 0)
            // `../R` is the device: its DeviceLocal is never archived and the header has its UDID.
            let backup = try Self.run(["backup", "../R", "-o", "\(dir)/r.tar"], in: cwd)
            #expect(backup.status == 0, "\(backup.stderr)")
            let listing = try Self.run(["list", "\(dir)/r.tar", "--json"], in: cwd)
            #expect(listing.status == 0, "\(listing.stderr)")
            #expect(!listing.stdout.contains("DeviceLocal"), "\(listing.stdout)")
            let names = try Shell.run("tar", ["-tf", "\(dir)/r.tar"]).stdout
            #expect(!names.contains("DeviceLocal"), "\(names)")
            let restored = try Self.run(["restore", "\(dir)/r.tar", "b/../new", "--json"], in: cwd)
            #expect(restored.status == 0, "\(restored.stderr)")
            #expect(try PhoneScratch.json(restored)["root"] as? String == "\(cwd)/new")
            let text = try Self.run(["restore", "\(dir)/r.tar", "b/../new2"], in: cwd)
            #expect(text.stderr.contains("\(cwd)/new2"), "\(text.stderr)")
            #expect(FileManager.default.fileExists(atPath: "\(cwd)/new/DeviceLocal/identity.plist"))
            #expect(!FileManager.default.fileExists(atPath: "/new"))
        }
    }
}
