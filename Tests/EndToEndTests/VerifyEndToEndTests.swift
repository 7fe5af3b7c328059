// VerifyEndToEndTests: `devicectl verify` exit status and messages for intact, altered and truncated archives.
import Foundation
import TestSupport
import Testing

@Suite struct VerifyEndToEndTests {
    @Test func intactArchive() throws {
        try PhoneScratch.with(initialised: false) { phone in
            let archive = phone.dir + "/backup.tar"
            try RestoreArchives.withManifest(archive)
            let text = try phone.ok(["verify", archive])
            #expect(text.stderr.contains("is intact: 4 files"))
            let json = try PhoneScratch.json(try phone.ok(["verify", archive, "--json"]))
            #expect(json["ok"] as? Bool == true)
            #expect((json["counts"] as? [String: Any])?["files"] as? Int == 4)
            #expect(json["sourceUdid"] as? String == "PYTHON-UDID")
            #expect((json["problems"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func progressIsDrawnOnRequestAndErasedBeforeTheSummary() throws {
        try PhoneScratch.with(initialised: false) { phone in
            let archive = phone.dir + "/backup.tar"
            try RestoreArchives.withManifest(archive)
            let drawn = try phone.ok(["verify", archive, "--progress"])
            #expect(drawn.stderr.contains("\r\u{1B}[2Kverifying "), "\(drawn.stderr)")
            #expect(drawn.stderr.contains("\r\u{1B}[2Kdevicectl: \(archive) is intact"), "\(drawn.stderr)")
            // A file archive: the share of it read so far, as a bar and a percentage.
            #expect(
                drawn.stderr.range(of: #"verifying  \[[#-]{24}\] +[0-9]{1,3}%"#, options: .regularExpression) != nil,
                "\(drawn.stderr)")
            // Not on a pipe unless asked, never with -q.
            #expect(!(try phone.ok(["verify", archive])).stderr.contains("verifying "))
            #expect(try phone.ok(["verify", archive, "--progress", "-q"]).stderr.isEmpty)
        }
    }

    /// list draws it too, when asked: its member lines are on stdout, the progress line on stderr.
    @Test func listDrawsProgressOnRequest() throws {
        try PhoneScratch.with(initialised: false) { phone in
            let archive = phone.dir + "/backup.tar"
            try RestoreArchives.withManifest(archive)
            let plain = try phone.ok(["list", archive])
            let drawn = try phone.ok(["list", archive, "--progress"])
            #expect(drawn.stdout == plain.stdout)
            #expect(
                drawn.stderr.range(of: #"listing  \[[#-]{24}\] +[0-9]{1,3}%"#, options: .regularExpression) != nil,
                "\(drawn.stderr)")
            #expect(drawn.stderr.hasSuffix("\r\u{1B}[2K"), "erased at the end: \(drawn.stderr)")
            #expect(!plain.stderr.contains("listing "))
        }
    }

    @Test func alteredTruncatedAndPlainArchivesFail() throws {
        try PhoneScratch.with(initialised: false) { phone in
            let altered = phone.dir + "/altered.tar"
            try RestoreArchives.withManifest(altered, corrupt: true)
            try phone.fails(
                ["verify", altered],
                mentioning: ["SHA-256 mismatch for 'Documents/a.txt'", "failed verification (1 problem)"])
            let json = try PhoneScratch.json(try phone.run(["verify", altered, "--json"]))
            #expect(json["ok"] as? Bool == false)
            let problems = try #require(json["problems"] as? [[String: Any]])
            #expect((problems.first?["message"] as? String)?.contains("Documents/a.txt") == true)

            let truncated = phone.dir + "/truncated.tar"
            let bytes = try Data(contentsOf: URL(fileURLWithPath: altered))
            try bytes.prefix(bytes.count / 2 + 100).write(to: URL(fileURLWithPath: truncated))
            try phone.fails(["verify", truncated], mentioning: ["truncated"])

            try Shell.run("tar", ["-czf", phone.dir + "/plain.tgz", "-C", phone.dir, "altered.tar"])
            try phone.fails(["verify", phone.dir + "/plain.tgz"], mentioning: ["no devicectl manifest"])
        }
    }
}
