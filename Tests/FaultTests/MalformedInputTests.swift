// MalformedInputTests: a malformed file anywhere devicectl reads one (container metadata, Info.plist, the
// home-screen layout, defaults, identity, notifications, the event log, the archive's manifest lines, plists
// inside an archive) gives a clear error naming the file, exit 1, no crash, nothing changed. The commands
// covered here are the ones ConventionsEndToEndTests leaves out (backup, restore, verify, list, widget-refresh,
// notifications, tap, events).
import Foundation
import TestSupport
import Testing

@Suite struct MalformedInputTests {
    struct Case: CustomStringConvertible, Sendable {
        let file: String
        let command: [String]
        var description: String { "\(file) via \(command.joined(separator: " "))" }
    }

    static let cases: [Case] = [
        Case(file: "group metadata", command: ["backup", "ROOT", "-o", "OUT/b.tar"]),
        Case(file: "data metadata", command: ["backup", "ROOT", "-o", "OUT/b.tar"]),
        Case(file: "info", command: ["backup", "ROOT", "-o", "OUT/b.tar"]),
        Case(file: "iconstate", command: ["backup", "ROOT", "-o", "OUT/b.tar"]),
        Case(file: "identity", command: ["backup", "ROOT", "-o", "OUT/b.tar"]),
        Case(file: "group metadata", command: ["widget-refresh", "ROOT"]),
        Case(file: "info", command: ["widget-refresh", "ROOT"]),
        Case(file: "iconstate", command: ["widget-refresh", "ROOT"]),
        Case(file: "defaults", command: ["widget-refresh", "ROOT"]),
        Case(file: "identity", command: ["widget-refresh", "ROOT"]),
        Case(file: "events", command: ["widget-refresh", "ROOT"]),
        Case(file: "notifications", command: ["notifications", "ROOT"]),
        Case(file: "identity", command: ["notifications", "ROOT"]),
        Case(file: "events", command: ["notifications", "ROOT"]),
        Case(file: "notifications", command: ["tap", "ROOT", "--notification", "N1"]),
        Case(file: "identity", command: ["tap", "ROOT", "--notification", "N1"]),
        Case(file: "info", command: ["tap", "ROOT", "--notification", "N1"]),
        Case(file: "events", command: ["events", "ROOT"]),
        Case(file: "identity", command: ["events", "ROOT"]),
    ]

    /// A device with an app in a group, its widget placed, launched, and one delivered notification.
    static func device(_ scratch: PhoneScratch) throws -> String {
        let root = scratch.root
        try scratch.ok(["init", root])
        try scratch.ok(["install", root, "--app", "com.example.news", "--group", "group.com.example.news"])
        try scratch.ok(["widget", "add", root, "--app", "com.example.news"])
        try scratch.ok(["launch", root, "--app", "com.example.news"])
        let notes = """
            import datetime, plistlib, sys
            notes = [dict(id='N1', app='com.example.news', title='t', body='b',
                          scheduledAt=datetime.datetime(2026, 11, 1), fireDate=datetime.datetime(2026, 11, 2))]
            open(sys.argv[1] + '/DeviceLocal/notifications.plist', 'wb').write(plistlib.dumps(notes, fmt=plistlib.FMT_BINARY))
            """
        let written = try Shell.run("python3", ["-c", notes, root])
        try #require(written.status == 0, "\(written.stderr)")
        return root
    }

    static func path(_ file: String, _ root: String) throws -> String {
        func container(_ kind: String) throws -> String {
            let base = "\(root)/Containers/\(kind)"
            return "\(base)/\(try #require(try FileManager.default.contentsOfDirectory(atPath: base).first))"
        }
        switch file {
        case "group metadata":
            return try container("Shared/AppGroup") + "/.com.apple.mobile_container_manager.metadata.plist"
        case "data metadata":
            return try container("Data/Application") + "/.com.apple.mobile_container_manager.metadata.plist"
        case "info": return try container("Bundle/Application") + "/News.app/Info.plist"
        case "nudge": return try container("Bundle/Application") + "/News.app/NudgeConfiguration.plist"
        case "entitlements":
            return try container("Bundle/Application") + "/News.app/archived-expanded-entitlements.xcent"
        case "defaults": return try container("Shared/AppGroup") + "/Library/Preferences/group.com.example.news.plist"
        case "iconstate": return root + "/Library/SpringBoard/IconState.plist"
        case "identity": return root + "/DeviceLocal/identity.plist"
        case "notifications": return root + "/DeviceLocal/notifications.plist"
        default: return root + "/DeviceLocal/events.jsonl"
        }
    }

    @Test(arguments: cases)
    func aMalformedFileIsNamedAndNothingChanges(_ testCase: Case) throws {
        try PhoneScratch.withFaults { scratch in
            let root = try Self.device(scratch)
            let out = scratch.dir + "/out"
            try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
            let path = try Self.path(testCase.file, root)
            try Data("bplist00 but not really\n".utf8).write(to: URL(fileURLWithPath: path))
            let before = try TreeSnapshot.take(root)
            let command = substitutingPlaceholders(testCase.command, ["ROOT": root, "OUT": out])
            try scratch.fails(command, mentioning: [path, "malformed"])
            var after = try TreeSnapshot.take(root)
            if testCase.command[0] == "widget-refresh" && testCase.file == "defaults" {
                // That widget fails and the others run: its decision (defaults-unreadable) is logged.
                after["DeviceLocal/events.jsonl"] = before["DeviceLocal/events.jsonl"]
            }
            #expect(after == before, "\(snapshotDifference(before, after))")
            #expect(try directoryNames(in: out) == [])
        }
    }

    @Test(arguments: ["identity", "iconstate"])
    func restoreOntoADeviceWithAMalformedFileNamesItAndChangesNothing(_ file: String) throws {
        try PhoneScratch.withFaults { scratch in
            let source = try scratch.phone(files: 3, size: 100)
            let archive = scratch.dir + "/phone.tar"
            try scratch.ok(["backup", source, "-o", archive])
            let root = try scratch.freshDevice("target")
            let path = try Self.path(file, root)
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data("bplist00 but not really\n".utf8).write(to: URL(fileURLWithPath: path))
            let before = try TreeSnapshot.take(root)
            try scratch.fails(["restore", archive, root], mentioning: [path, "malformed"])
            #expect(try TreeSnapshot.take(root) == before)
        }
    }

    /// Manifest lines that are not what they claim: each is named with its line number by verify, list and restore.
    @Test(arguments: [
        ("{\"kind\":\"header\",", "line 1"), ("{\"kind\":\"file\",\"path\":\"a\",\"size\":\"big\"}", "line 2"),
        ("[1,2,3]", "line 2"), (String(repeating: "[", count: 50_000), "line 2"),
        ("{\"kind\":\"totals\",\"files\":-1}", "line 2"),
    ])
    func aMalformedManifestLineIsNamed(_ line: String, _ where: String) throws {
        try PhoneScratch.withFaults { scratch in
            let tree = try PhoneScratch.fill(scratch.dir + "/tree", files: 3, size: 100)
            let archive = scratch.dir + "/b.tar"
            try scratch.ok(["backup", tree, "-o", archive])
            // Replace the manifest: the first line kept unless the bad one replaces it, then the bad line.
            let rewrite = """
                import sys, tarfile, io
                src = tarfile.open(sys.argv[1]); out = tarfile.open(sys.argv[2], 'w', format=tarfile.PAX_FORMAT)
                for m in src.getmembers():
                    data = src.extractfile(m).read() if m.isfile() else None
                    if m.name == '.devicectl-manifest.jsonl':
                        lines = data.split(b'\\n')
                        bad = sys.argv[3].encode()
                        data = (bad + b'\\n') if sys.argv[4] == 'line 1' else (lines[0] + b'\\n' + bad + b'\\n')
                        m.size = len(data)
                    out.addfile(m, io.BytesIO(data) if data is not None else None)
                out.close()
                """
            let damaged = scratch.dir + "/damaged.tar"
            let made = try Shell.run("python3", ["-c", rewrite, archive, damaged, line, `where`])
            try #require(made.status == 0, "\(made.stderr)")
            let verify = try scratch.run(["verify", damaged])
            #expect(verify.status == 1)
            #expect(
                verify.stderr.contains(".devicectl-manifest.jsonl")
                    || verify.stdout.contains(".devicectl-manifest.jsonl")
                    || verify.stderr.contains("manifest"), "\(verify.stderr)")
            #expect(verify.stderr.contains(`where`) || verify.stdout.contains(`where`), "\(verify.stderr)")
            #expect(!verify.stderr.contains("Fatal error"))
            let list = try scratch.run(["list", damaged])
            PhoneScratch.expectCleanFailure(
                list, mentioning: ["the manifest (.devicectl-manifest.jsonl) is malformed: \(`where`)"])
            let root = try scratch.freshDevice("target")
            let before = try TreeSnapshot.take(root)
            try scratch.fails(["restore", damaged, root], mentioning: [`where`, "nothing was restored"])
            #expect(try TreeSnapshot.take(root) == before)
        }
    }

    @Test func aMalformedPlistInsideAnArchiveIsNamedAsTheArchivesFile() throws {
        try PhoneScratch.withFaults { scratch in
            let source = try scratch.phone(files: 3, size: 100)
            let archive = scratch.dir + "/phone.tar"
            try scratch.ok(["backup", source, "-o", archive])
            // The App Group's metadata replaced by junk, with the manifest's file line and totals made to agree
            // (and its optional members line dropped): every digest matches, but the app could not be reinstalled.
            let rewrite = """
                import sys, tarfile, io, json, hashlib
                src = tarfile.open(sys.argv[1]); out = tarfile.open(sys.argv[2], 'w', format=tarfile.PAX_FORMAT)
                junk = b'bplist00 junk'; target = None; delta = 0
                members = []
                for m in src.getmembers():
                    data = src.extractfile(m).read() if m.isfile() else None
                    if m.isfile() and 'Shared/AppGroup/' in m.name and m.name.endswith('metadata.plist'):
                        target = m.name; delta = len(junk) - len(data); data = junk; m.size = len(junk)
                    members.append((m, data))
                for m, data in members:
                    if m.name == '.devicectl-manifest.jsonl':
                        lines = []
                        for line in data.decode().splitlines():
                            obj = json.loads(line)
                            if obj['kind'] == 'members': continue
                            if obj['kind'] == 'file' and obj['path'] == target:
                                obj['size'] = len(junk); obj['sha256'] = hashlib.sha256(junk).hexdigest()
                            if obj['kind'] == 'totals': obj['bytes'] += delta
                            lines.append(json.dumps(obj, separators=(',', ':')))
                        data = ('\\n'.join(lines) + '\\n').encode(); m.size = len(data)
                    out.addfile(m, io.BytesIO(data) if data is not None else None)
                out.close()
                print(target)
                """
            let damaged = scratch.dir + "/damaged.tar"
            let made = try Shell.run("python3", ["-c", rewrite, archive, damaged])
            try #require(made.status == 0, "\(made.stderr)")
            let member = made.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            // Issue 13, finding 9: verify called it intact; both now refuse the member with the same words.
            let words = ["member '\(member)'", "malformed property list (not a binary property list)"]
            try scratch.fails(["verify", damaged], mentioning: words)
            let root = try scratch.freshDevice("target")
            let before = try TreeSnapshot.take(root)
            // The restore names the archive first: the user's file, then the member and the cause.
            try scratch.fails(["restore", damaged, root], mentioning: words + ["\(damaged): refusing member '\(member)'"])
            #expect(try TreeSnapshot.take(root) == before)
        }
    }
}
