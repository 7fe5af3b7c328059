// ListEndToEndTests: `devicectl list` shows members (type, mode, size, mtime, path) and the manifest summary.
import Foundation
import Glibc
import TestSupport
import Testing

@Suite struct ListEndToEndTests {
    @Test func membersAndManifest() throws {
        try PhoneScratch.with(initialised: false) { phone in
            let archive = phone.dir + "/backup.tar"
            try RestoreArchives.withManifest(archive)
            let text = try phone.ok(["list", archive]).stdout
            #expect(text.contains("drwxr-xr-x 0/0 "))
            #expect(text.contains("-rw-r--r-- 0/0                  6 2023-11-14T22:13:20Z  Documents/a.txt\n"))
            #expect(text.contains("manifest: devicectl-backup v1, made by python at 2026-11-29T12:00:00Z"))
            #expect(text.contains("  device: PYTHON-UDID"))
            #expect(text.contains("  totals: 4 files"))
            let json = try PhoneScratch.json(try phone.ok(["list", archive, "--json"]))
            let members = try #require(json["members"] as? [[String: Any]])
            #expect(members.count == 6)
            #expect(members[1]["path"] as? String == "Documents/a.txt")
            #expect(members[1]["type"] as? String == "file")
            #expect(members[1]["mode"] as? String == "644")
            #expect(members[1]["size"] as? Int == 6)
            let manifest = try #require(json["manifest"] as? [String: Any])
            #expect(manifest["sourceUdid"] as? String == "PYTHON-UDID")
            #expect((manifest["counts"] as? [String: Any])?["files"] as? Int == 4)
        }
    }

    @Test func plainArchiveAndDamage() throws {
        try PhoneScratch.with(initialised: false) { phone in
            try FileManager.default.createDirectory(atPath: phone.dir + "/src", withIntermediateDirectories: true)
            symlink("target", phone.dir + "/src/link")
            try Shell.run("tar", ["-cf", phone.dir + "/plain.tar", "-C", phone.dir + "/src", "."])
            let text = try phone.ok(["list", phone.dir + "/plain.tar"]).stdout
            #expect(text.contains("./link -> target"))
            #expect(text.contains("no devicectl manifest"))
            let json = try PhoneScratch.json(try phone.ok(["list", phone.dir + "/plain.tar", "--json"]))
            #expect(json["manifest"] is NSNull)
            try Data("not an archive at all".utf8).write(to: URL(fileURLWithPath: phone.dir + "/junk"))
            try phone.fails(["list", phone.dir + "/junk"], mentioning: ["not a tar archive"])
        }
    }

    /// A GNU tar holding names that are not UTF-8 is listed, each invalid byte in octal, exactly as `tar -tf`.
    @Test func nonUTF8NamesAreListedAsGNUTarListsThem() throws {
        try withTemporaryDirectory { dir in
            let names: [[UInt8]] = [Array("bad".utf8) + [0xFF] + Array("name".utf8), [0xC3, 0x28, 0x41], [0xE2, 0x82]]
            try FileManager.default.createDirectory(atPath: "\(dir)/tree", withIntermediateDirectories: true)
            for name in names {
                let path = Array("\(dir)/tree/".utf8) + name + [0]
                let fd = path.withUnsafeBufferPointer { open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_WRONLY | O_CREAT, 0o644) }
                try #require(fd >= 0)
                close(fd)
            }
            let archive = "\(dir)/gnu.tar"
            try #require(try Shell.run("tar", ["--format=gnu", "-C", "\(dir)/tree", "-cf", archive, "."]).status == 0)
            let expected = try Shell.run("tar", ["-tf", archive]).stdout.split(separator: "\n").map(String.init)
            let listed = try DevicectlBinary.run(["list", archive])
            #expect(listed.status == 0, "\(listed.stderr)")
            let shown = listed.stdout.split(separator: "\n").compactMap { line in
                line.range(of: "Z  ").map { String(line[$0.upperBound...]) }
            }
            #expect(Set(shown) == Set(expected), "\(shown) vs \(expected)")
            #expect(shown.contains("./bad\\377name"), "\(shown)")
        }
    }
}
