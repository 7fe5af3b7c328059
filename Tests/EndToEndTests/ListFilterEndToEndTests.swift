// ListFilterEndToEndTests: `list ARCHIVE PATH...` shows only the members a PATH or glob selects (as `tar -tf
// ARCHIVE PATH` does for names), `--summary` only the manifest summary, and a PATH that selects nothing fails.
import Foundation
import TestSupport
import Testing

@Suite struct ListFilterEndToEndTests {
    /// The member paths of a plain listing (the last column; no link targets in this tree).
    static func paths(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false).prefix { !$0.isEmpty }
            .map { String($0[$0.range(of: "Z  ")!.upperBound...]) }
    }

    /// A tree with a directory, files below it and plists at two depths, archived by devicectl.
    static func archive(_ phone: PhoneScratch) throws -> String {
        let source = phone.dir + "/src"
        for directory in ["Library/Preferences", "Documents/deep"] {
            try FileManager.default.createDirectory(atPath: "\(source)/\(directory)", withIntermediateDirectories: true)
        }
        for file in ["Library/Preferences/a.plist", "Library/notes.txt", "Documents/b.plist", "Documents/deep/c.txt",
                     "Libraryish.txt"] {
            try Data(file.utf8).write(to: URL(fileURLWithPath: "\(source)/\(file)"))
        }
        let archive = phone.dir + "/tree.tar"
        try phone.ok(["backup", source, "-o", archive, "--no-progress"])
        return archive
    }

    @Test func aPathSelectsItsMemberAndEverythingBelowIt() throws {
        try PhoneScratch.with(initialised: false) { phone in
            let archive = try Self.archive(phone)
            let listed = try phone.ok(["list", archive, "./Library/"]).stdout
            #expect(Set(Self.paths(listed))
                == ["Library/", "Library/Preferences/", "Library/Preferences/a.plist", "Library/notes.txt"])
            #expect(!listed.contains("Libraryish.txt"), "a prefix of a name is not a parent")
            let all = try phone.ok(["list", archive]).stdout
            let total = Self.paths(all).count
            #expect(listed.contains("\n\(total) members; "), "the summary counts all members: \(listed)")
            let json = try PhoneScratch.json(try phone.ok(["list", archive, "Library", "--json"]))
            let members = try #require(json["members"] as? [[String: Any]])
            #expect(Set(members.compactMap { $0["path"] as? String })
                == ["Library/", "Library/Preferences/", "Library/Preferences/a.plist", "Library/notes.txt"])
        }
    }

    @Test func aGlobSelectsByTheExcludeLanguage() throws {
        try PhoneScratch.with(initialised: false) { phone in
            let archive = try Self.archive(phone)
            let any = Self.paths(try phone.ok(["list", archive, "*.plist"]).stdout)
            #expect(Set(any) == ["Library/Preferences/a.plist", "Documents/b.plist"])
            let anchored = Self.paths(try phone.ok(["list", archive, "Documents/*"]).stdout)
            #expect(Set(anchored) == ["Documents/b.plist", "Documents/deep/"], "'*' never matches '/'")
            let both = Self.paths(try phone.ok(["list", archive, "Documents/deep", "*.txt"]).stdout)
            #expect(Set(both) == ["Documents/deep/", "Documents/deep/c.txt", "Library/notes.txt", "Libraryish.txt"])
        }
    }

    @Test func summaryPrintsOnlyTheManifest() throws {
        try PhoneScratch.with(initialised: false) { phone in
            let archive = try Self.archive(phone)
            let text = try phone.ok(["list", archive, "--summary"]).stdout
            #expect(text.hasPrefix("\(Self.paths(try phone.ok(["list", archive]).stdout).count) members; "), "\(text)")
            #expect(!text.contains("a.plist") && !text.hasPrefix("\n"), "\(text)")
            #expect(text.contains("  totals: 5 files"))
            let json = try PhoneScratch.json(try phone.ok(["list", archive, "--summary", "--json"]))
            #expect((json["members"] as? [Any])?.isEmpty == true)
            #expect(json["manifest"] is [String: Any])
        }
    }

    @Test func aPathThatSelectsNothingFailsAfterTheListing() throws {
        try PhoneScratch.with(initialised: false) { phone in
            let archive = try Self.archive(phone)
            let result = try phone.fails(
                ["list", archive, "Library", "Nope", "*.zip"], mentioning: ["not found in archive: 'Nope', '*.zip'"])
            #expect(result.stdout.contains("Library/notes.txt"), "what was found is listed first")
            try phone.fails(["list", archive, "a["], status: 64, mentioning: ["invalid PATH pattern 'a['"])
        }
    }
}
