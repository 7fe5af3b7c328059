// JSONVocabularyTests: each command's --json output, decoded and held to docs/JSON.md (keys and types), and
// the rules every command shares: one result line on stdout, only JSON lines on stderr, errors as objects.
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct JSONVocabularyTests {
    typealias F = NudgeFixture

    /// Checks a run: exit `status`, stdout one result object shaped as docs/JSON.md's table `name` (with the
    /// keys every result has, `type` "result" and `command`), every stderr line a documented stderr object,
    /// the last an error with the exit status when the run failed. Returns the result.
    @discardableResult
    static func check(
        _ result: RunResult, _ name: String, command: String? = nil, status: Int32 = 0,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [String: Any] {
        let vocabulary = try JSONVocabulary.load()
        #expect(result.status == status, "\(result.stderr)", sourceLocation: sourceLocation)
        let lines = result.stdout.split(separator: "\n")
        try #require(lines.count == 1, "one result line: \(result.stdout)", sourceLocation: sourceLocation)
        let value = try JSONDecoder().decode(StrictJSON.self, from: Data(lines[0].utf8))
        let problems = vocabulary.problems(value, object: name, adding: JSONVocabulary.resultName)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))\n\(lines[0])", sourceLocation: sourceLocation)
        #expect(value[string: "type"] == "result", sourceLocation: sourceLocation)
        #expect(value[string: "command"] == command ?? name, sourceLocation: sourceLocation)
        try checkStderr(result, status: status, vocabulary, sourceLocation: sourceLocation)
        return try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
    }

    /// Every stderr line is a documented stderr object; a failed run's last one is its error.
    static func checkStderr(
        _ result: RunResult, status: Int32, _ vocabulary: JSONVocabulary,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let lines = result.stderr.split(separator: "\n")
        for line in lines {
            let value = try #require(
                try? JSONDecoder().decode(StrictJSON.self, from: Data(line.utf8)), "not JSON on stderr: \(line)",
                sourceLocation: sourceLocation)
            let isProgress = line.contains(#""type":"progress""#)
            let problems = vocabulary.problems(value, object: isProgress ? "ProgressLine" : JSONVocabulary.stderrName)
            #expect(problems.isEmpty, "\(problems) in \(line)", sourceLocation: sourceLocation)
        }
        if status != 0 {
            let last = try #require(lines.last, "a failure ends with an error line", sourceLocation: sourceLocation)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
            #expect(object["type"] as? String == "error", "\(last)", sourceLocation: sourceLocation)
            #expect(object["exitStatus"] as? Int == Int(status), "\(last)", sourceLocation: sourceLocation)
        }
    }

    /// Runs `arguments --json`, with `--now` for the commands that take it.
    static func run(_ arguments: [String], at now: Date? = F.t0) throws -> RunResult {
        guard let now else { return try DevicectlBinary.run(arguments + ["--json"]) }
        return try F.run(arguments + ["--json"], at: now)
    }

    @Test func theDocsDefineEveryObjectTheyName() throws {
        let vocabulary = try JSONVocabulary.load()
        let primitive: Set = ["string", "integer", "number", "boolean", "JSON", "null"]
        var missing: [String] = []
        for (name, fields) in vocabulary.objects {
            for (key, type) in fields {
                var names = JSONVocabulary.alternatives(type)
                while let next = names.popLast() {
                    if next.hasPrefix("[") { names.append(String(next.dropFirst().dropLast())) }
                    else if next.hasPrefix("{string: ") { names.append(String(next.dropFirst(9).dropLast())) }
                    else if !primitive.contains(next) && vocabulary.objects[next] == nil {
                        missing.append("\(name).\(key): \(next)")
                    }
                }
            }
        }
        #expect(missing.isEmpty, "\(missing)")
        for command in ["init", "install", "status", "launch", "tap", "notifications", "events", "widget-refresh",
            "exclude check", "backup", "backup --dry-run", "restore", "verify", "list"]
        {
            #expect(vocabulary.objects[command] != nil, "docs/JSON.md documents \(command)")
        }
    }

    @Test func initResult() throws {
        try withTemporaryDirectory { dir in
            let object = try Self.check(try Self.run(["init", "\(dir)/phone"]), "init")
            #expect(object["repaired"] as? Bool == false)
            #expect((object["warnings"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func installResult() throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/phone"
            try F.phone(root, apps: [])
            let object = try Self.check(
                try Self.run(["install", root, "--app", F.news, "--nudge-policy", "once"], at: nil), "install")
            #expect(object["widget"] is [String: Any], "the WidgetSettings object is checked too")
        }
    }

    @Test func statusResult() throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/phone"
            try F.phoneWithScheduledNudge(root)
            let object = try Self.check(try Self.run(["status", root], at: F.at(hours: 2)), "status")
            let app = try #require((object["apps"] as? [[String: Any]])?.first)
            #expect(app["widget"] is [String: Any] && app["markerPath"] is String)
        }
    }

    @Test func launchResult() throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/phone"
            try F.phoneWithScheduledNudge(root)
            let object = try Self.check(
                try Self.run(["launch", root, "--app", F.news], at: F.at(hours: 2)), "launch")
            #expect((object["cancelledNotifications"] as? [String])?.count == 1)
            let marker = try #require(object["markerPath"] as? String)
            #expect(!marker.hasPrefix("/"), "relative to ROOT, as status shows it")
            #expect(object["source"] as? String == "home-screen")
        }
    }

    @Test func tapResult() throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/phone"
            try F.phoneWithScheduledNudge(root)
            let late = F.at(hours: 30)
            let id = try #require(try F.notifications(root, at: late).first?["id"] as? String)
            let object = try Self.check(try Self.run(["tap", root, "--notification", id], at: late), "tap")
            #expect(object["notification"] as? String == id)
            #expect(object["source"] as? String == "notification")
        }
    }

    @Test func notificationsResult() throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/phone"
            try F.phoneWithScheduledNudge(root)
            let object = try Self.check(try Self.run(["notifications", root], at: F.at(hours: 30)), "notifications")
            #expect((object["notifications"] as? [Any])?.count == 1)
        }
    }

    /// Event details are typed: counts are integers, yes/no fields booleans, the restored apps an array.
    @Test func eventsResult() throws {
        try withTemporaryDirectory { dir in
            let (old, new) = ("\(dir)/old", "\(dir)/new")
            try F.phone(old)
            try F.restore(from: old, to: new)
            let before = try Self.check(try Self.run(["events", old], at: nil), "events")
            let backup = try #require(
                (before["events"] as? [[String: Any]])?.first { $0["type"] as? String == "backup" })
            let backupDetails = try #require(backup["details"] as? [String: Any])
            #expect(backupDetails["files"] is Int && backupDetails["archiveBytes"] is Int, "\(backupDetails)")
            let after = try Self.check(try Self.run(["events", new], at: nil), "events")
            let restore = try #require(
                (after["events"] as? [[String: Any]])?.first { $0["type"] as? String == "restore" })
            let details = try #require(restore["details"] as? [String: Any])
            #expect(details["verified"] as? Bool == true, "\(details)")
            #expect(details["apps"] as? [String] == [F.news])
            #expect(details["sourceUdid"] is String && details["source"] == nil)
        }
    }

    @Test func widgetAddListAndContainerResults() throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/phone"
            try F.phone(root, apps: [])
            try DevicectlBinary.run(["install", root, "--app", F.news])
            let added = try Self.check(
                try Self.run(["widget", "add", root, "--app", F.news, "--size", "small"], at: nil), "widget add")
            #expect(added["added"] as? Bool == true)
            let listed = try Self.check(try Self.run(["widget", "list", root], at: nil), "widget list")
            let widget = try #require((listed["widgets"] as? [[String: Any]])?.first)
            #expect(widget["size"] as? String == "small" && widget["stack"] is NSNull)
            let groups = try Self.check(
                try Self.run(["container", root, "--app", F.news, "groups"], at: nil), "container")
            #expect(groups["path"] is NSNull && groups["groups"] is [String: String])
            let data = try Self.check(try Self.run(["container", root, "--app", F.news, "data"], at: nil), "container")
            #expect((data["path"] as? String)?.hasPrefix(root) == true && data["groups"] is NSNull)
        }
    }

    @Test func widgetRefreshResult() throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/phone"
            try F.phone(root)
            try F.launch(root, at: F.at(hours: 0))
            try FileManager.default.removeItem(atPath: try F.markerPath(root))
            let object = try Self.check(try Self.run(["widget-refresh", root], at: F.at(hours: 1)), "widget-refresh")
            let widget = try #require((object["widgets"] as? [[String: Any]])?.first)
            #expect(widget["decision"] as? String == "scheduled" && widget["fireDate"] is String)
        }
    }

    /// A path that cannot be checked is listed in `errors`, and the run ends with an error line (exit 1).
    @Test func excludeCheckResult() throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/phone"
            try F.phone(root)
            let result = try Self.run(["exclude", "check", root + "/Library", root + "/missing"], at: nil)
            let object = try Self.check(result, "exclude check", status: 1)
            #expect((object["paths"] as? [Any])?.count == 1)
            let errors = try #require(object["errors"] as? [[String: Any]])
            #expect(errors.first?["path"] as? String == root + "/missing")
        }
    }

    @Test func backupResult() throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/phone"
            try F.phone(root)
            let object = try Self.check(try Self.run(["backup", root, "-o", "\(dir)/a.tar.gz"], at: nil), "backup")
            #expect(object["dryRun"] as? Bool == false)
            let excluded = try #require(object["excluded"] as? [String: Any])
            #expect(excluded["directories"] is Int, "a backup knows how many skipped entries are directories")
        }
    }

    @Test func backupDryRunResult() throws {
        try withTemporaryDirectory { dir in
            let root = "\(dir)/phone"
            try F.phone(root)
            let object = try Self.check(
                try Self.run(["backup", root, "--dry-run", "--exclude", "Library"], at: nil), "backup --dry-run",
                command: "backup")
            #expect(object["dryRun"] as? Bool == true)
            let paths = try #require(object["excludedPaths"] as? [[String: Any]])
            #expect(paths.contains { $0["pattern"] as? String == "Library" }, "\(paths)")
        }
    }

    /// A plain tar restores with a warning: it is in the result's `warnings` and on stderr as a warning line.
    @Test func restoreResult() throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(atPath: "\(dir)/src/Documents", withIntermediateDirectories: true)
            try Data("hi".utf8).write(to: URL(fileURLWithPath: "\(dir)/src/Documents/a.txt"))
            try Shell.run("tar", ["-cf", "\(dir)/plain.tar", "-C", "\(dir)/src", "."])
            let result = try Self.run(["restore", "\(dir)/plain.tar", "\(dir)/phone"])
            let object = try Self.check(result, "restore")
            #expect(object["verified"] as? Bool == false)
            let warnings = try #require(object["warnings"] as? [[String: Any]])
            #expect(!warnings.isEmpty, "\(result.stderr)")
            #expect(result.stderr.contains(#""type":"warning""#), "\(result.stderr)")
        }
    }

    /// A restore refused for the archive's fault ends with an error line about the archive: `path` names it.
    @Test func aRefusedRestoreNamesTheArchive() throws {
        try withTemporaryDirectory { dir in
            let bad = "\(dir)/bad.tar"
            try RestoreArchives.withManifest(bad, corrupt: true)
            let result = try Self.run(["restore", bad, "\(dir)/phone"], at: nil)
            try Self.checkStderr(result, status: 1, try JSONVocabulary.load())
            let last = try #require(result.stderr.split(separator: "\n").last)
            let error = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
            #expect(error["path"] as? String == bad, "\(last)")
            #expect((error["message"] as? String)?.hasPrefix(bad + ": ") == true, "\(last)")
        }
    }

    /// A damaged archive still prints the result (ok false, problems as messages), then an error line.
    @Test func verifyResult() throws {
        try withTemporaryDirectory { dir in
            let (good, bad) = ("\(dir)/good.tar", "\(dir)/bad.tar")
            try RestoreArchives.withManifest(good)
            try RestoreArchives.withManifest(bad, corrupt: true)
            let intact = try Self.check(try Self.run(["verify", good], at: nil), "verify")
            #expect(intact["ok"] as? Bool == true && intact["sourceUdid"] as? String == "PYTHON-UDID")
            let damaged = try Self.check(try Self.run(["verify", bad], at: nil), "verify", status: 1)
            #expect(damaged["ok"] as? Bool == false)
            #expect((damaged["problems"] as? [[String: Any]])?.isEmpty == false)
        }
    }

    /// With `--progress`, backup, verify and restore write ProgressLines on stderr (the first at once, then at most
    /// ten a second); the result is still the one object on stdout. Reading an archive file, a line knows its
    /// total and percent.
    @Test func progressLinesUnderJSON() throws {
        try withTemporaryDirectory { dir in
            try FileManager.default.createDirectory(atPath: "\(dir)/src/Documents", withIntermediateDirectories: true)
            try Data("hi".utf8).write(to: URL(fileURLWithPath: "\(dir)/src/Documents/a.txt"))
            let archive = "\(dir)/good.tar"
            try RestoreArchives.withManifest(archive)
            let runs: [([String], String)] = [
                (["backup", "\(dir)/src", "-o", "\(dir)/b.tar", "--progress"], "backup"),
                (["verify", archive, "--progress"], "verify"),
                (["restore", archive, "\(dir)/phone", "--progress"], "restore"),
            ]
            for (arguments, name) in runs {
                let result = try Self.run(arguments, at: nil)
                try Self.check(result, name)
                let lines = result.stderr.split(separator: "\n").filter { $0.contains(#""type":"progress""#) }
                #expect(!lines.isEmpty, "\(name): \(result.stderr)")
                let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
                #expect(first["command"] as? String == name)
                if name != "backup" {
                    #expect(first["total"] as? Int == (try FileManager.default.attributesOfItem(atPath: archive)[.size] as? Int))
                    #expect(first["percent"] is Double || first["percent"] is Int, "\(lines[0])")
                }
            }
            // Counted first (DEVICECTL_THREADS=pinned), every backup line has the total: the files it will store.
            let counted = try DevicectlBinary.run(
                ["backup", "\(dir)/src", "-o", "\(dir)/c.tar", "--progress", "--json"],
                environment: ["DEVICECTL_THREADS": "pinned"])
            try Self.check(counted, "backup")
            let lines = counted.stderr.split(separator: "\n").filter { $0.contains(#""type":"progress""#) }
            #expect(!lines.isEmpty, "\(counted.stderr)")
            for line in lines {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                #expect(object["total"] as? Int == 1, "\(line)")
                #expect(object["percent"] is Double || object["percent"] is Int, "\(line)")
            }
            let quiet = try Self.run(["verify", archive, "--progress", "-q"], at: nil)
            #expect(!quiet.stderr.contains(#""type":"progress""#), "\(quiet.stderr)")
        }
    }

    @Test func listResult() throws {
        try withTemporaryDirectory { dir in
            let archive = "\(dir)/a.tar"
            try RestoreArchives.withManifest(archive)
            let object = try Self.check(try Self.run(["list", archive], at: nil), "list")
            let manifest = try #require(object["manifest"] as? [String: Any])
            #expect(manifest["counts"] is [String: Any] && manifest["excluded"] is [String: Any])
            try Shell.run("tar", ["-cf", "\(dir)/plain.tar", "-C", dir, "a.tar"])
            let plain = try Self.check(try Self.run(["list", "\(dir)/plain.tar"], at: nil), "list")
            #expect(plain["manifest"] is NSNull && plain["manifestProblem"] is NSNull)
        }
    }

    /// A MobileSync backup's verify and list results, intact and damaged, held to their own tables.
    @Test func mobileSyncVerifyAndListResults() throws {
        try withTemporaryDirectory { dir in
            let (good, bad) = ("\(dir)/good", "\(dir)/bad")
            try ForeignBackup.make(good)
            try ForeignBackup.make(bad, mutation: "content-short")
            let intact = try Self.check(
                try Self.run(["verify", good], at: nil), "verify (MobileSync backup)", command: "verify")
            #expect(intact["ok"] as? Bool == true && intact["sourceUdid"] as? String == "00008030-001A2B3C4D5E6F70")
            let damaged = try Self.check(
                try Self.run(["verify", bad], at: nil), "verify (MobileSync backup)", command: "verify", status: 1)
            #expect(damaged["ok"] as? Bool == false && damaged["problemCount"] as? Int == 1)
            let listed = try Self.check(try Self.run(["list", good], at: nil), "list (MobileSync backup)", command: "list")
            #expect((listed["members"] as? [Any])?.count == ForeignBackup.rows.count)
        }
    }

    /// Under --json a failure prints no result, only its error line; a usage error is one too (exit 64),
    /// even for an unknown command; exit statuses are the plain output's.
    @Test(arguments: [
        (["status", "/nonexistent/phone"], Int32(1), "status"),
        (["status", "/x", "--bogus"], Int32(64), "status"),
        (["backup", "/x", "-o", "-"], Int32(64), "backup"),
        (["no-such-command"], Int32(64), ""),
    ])
    func errorsAreObjectsOnStderr(_ arguments: [String], _ status: Int32, _ command: String) throws {
        let result = try DevicectlBinary.run(arguments + ["--json"])
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stdout.isEmpty, "no result: \(result.stdout)")
        try Self.checkStderr(result, status: status, try JSONVocabulary.load())
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1, "one error line, no usage hints: \(result.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect((object["command"] as? String ?? "") == command)
        #expect(!(object["message"] as? String ?? "").hasPrefix("devicectl:"))
    }
}
