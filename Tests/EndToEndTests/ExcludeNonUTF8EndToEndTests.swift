// ExcludeNonUTF8EndToEndTests: `exclude add/remove/check` on names that are not UTF-8 (Linux names are bytes):
// they act on the file itself, and print its name as `list` does (tar's escapes, each invalid byte in octal).
import Foundation
import TestSupport
import Testing

@Suite struct ExcludeNonUTF8EndToEndTests {
    /// Runs `devicectl` through sh, so an argument can hold any byte: `$N` in `script` are `arguments`, and
    /// `"$(printf 'caf\351')"` builds a name. `$D` is the binary.
    static func sh(_ script: String, _ arguments: String...) throws -> RunResult {
        try Shell.run("sh", ["-c", "D=\"$0\"; " + script, DevicectlBinary.path] + arguments)
    }

    /// The bytes `caf\351` (Latin-1 "café"), `\377` alone and a lone continuation byte: none are UTF-8.
    static let names = [#"caf\351"#, #"\377"#, #"a\200b"#]

    @Test(arguments: names)
    func addCheckAndRemoveActOnTheBytes(_ escaped: String) throws {
        try withTemporaryDirectory { dir in
            // printf's octal escapes are the same as the output's: the test names the file as devicectl shows it.
            let name = #""$1/$(printf '"# + escaped + #"')""#
            let made = try Self.sh("touch \(name)", dir)
            try #require(made.status == 0, "\(made.stderr)")
            let listed = try #require(try FileManager.default.contentsOfDirectory(atPath: dir).first)
            #expect(!listed.isEmpty)
            let before = try Self.sh("\"$D\" exclude check \(name)", dir)
            #expect(before.status == 0, "\(before.stderr)")
            #expect(before.stdout == "\(dir)/\(escaped): included\n")
            let added = try Self.sh("\"$D\" exclude add \(name)", dir)
            #expect(added.status == 0, "\(added.stderr)")
            #expect(added.stdout == "\(dir)/\(escaped): excluded from backup\n")
            let xattr = try Self.sh(
                "getfattr --absolute-names -n user.com.apple.metadata:com_apple_backup_excludeItem \(name)", dir)
            #expect(xattr.status == 0, "the flag is on the file itself: \(xattr.stderr)")
            let json = try Self.sh("\"$D\" exclude check --json \(name)", dir)
            #expect(json.status == 0, "\(json.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])
            let verdict = try #require((object["paths"] as? [[String: Any]])?.first)
            #expect(verdict["path"] as? String == "\(dir)/\(escaped)")
            #expect(verdict["reasons"] as? [String] == ["apple-exclude-xattr"])
            let removed = try Self.sh("\"$D\" exclude remove \(name)", dir)
            #expect(removed.stdout == "\(dir)/\(escaped): no longer excluded from backup\n", "\(removed.stderr)")
            let after = try Self.sh("\"$D\" exclude check \(name)", dir)
            #expect(after.stdout == "\(dir)/\(escaped): included\n")
        }
    }

    /// Inside a device root the iOS rules apply to such a name too (Library/Caches), and a missing one is
    /// said to be missing, named as it was typed.
    @Test func deviceRulesAndMissingNames() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            let caches = try phone.containerPath("Containers/Data/Application", "com.example.news") + "/Library/Caches"
            try FileManager.default.createDirectory(atPath: caches, withIntermediateDirectories: true)
            let made = try Self.sh(#"touch "$1/$(printf 'caf\351')" "$1/cafe""#, caches)
            try #require(made.status == 0, "\(made.stderr)")
            let check = try Self.sh(#""$D" exclude check "$1/$(printf 'caf\351')""#, caches)
            let twin = try Self.sh(#""$D" exclude check "$1/cafe""#, caches)
            #expect(check.stdout.contains("excluded (excluded-ancestor: ") && check.stdout.contains("[ios-caches]"))
            #expect(
                check.stdout.replacingOccurrences(of: "caf\\351", with: "cafe") == twin.stdout,
                "the same answer as for a UTF-8 name: \(check.stdout) \(check.stderr)")
            let missing = try Self.sh(#""$D" exclude add "$1/$(printf 'nope\351')""#, caches)
            #expect(missing.status == 1)
            #expect(missing.stderr == "devicectl: \(caches)/nope\\351: no such file or directory\n")
        }
    }

    /// A directory above the file that is not UTF-8 is refused with a way forward, not "no such file".
    @Test func aDirectoryThatIsNotUTF8IsSaidSo() throws {
        try withTemporaryDirectory { dir in
            let made = try Self.sh(#"mkdir "$1/$(printf 'd\351')" && touch "$1/$(printf 'd\351')/f\351""#, dir)
            try #require(made.status == 0, "\(made.stderr)")
            let check = try Self.sh(#""$D" exclude check "$1/$(printf 'd\351')/$(printf 'f\351')""#, dir)
            #expect(check.status == 1)
            #expect(check.stderr.contains("d\\351/f\\351: a directory above the file has a name that is not UTF-8"))
        }
    }
}
