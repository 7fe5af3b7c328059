// RestoreEndToEndTests: `devicectl restore` through the built binary: archives made by Python's tarfile (with a
// manifest) and GNU tar, hostile ones, stdin, --json, the event log, and a real SIGINT mid-restore.
import Foundation
import TestSupport
import Testing

/// Archives for the end-to-end tests, made by independent tools.
enum RestoreArchives {
    /// A pax archive with a devicectl manifest (header, file lines, totals), written by Python's tarfile.
    /// `corrupt` flips a byte of Documents/a.txt's data after the manifest was computed.
    static func withManifest(_ path: String, files: Int = 3, corrupt: Bool = false) throws {
        let script = """
            import hashlib, io, json, sys, tarfile
            out, count, corrupt = sys.argv[1], int(sys.argv[2]), sys.argv[3] == '1'
            entries = [('Documents', None), ('Documents/a.txt', b'hello\\n')]
            entries += [('Documents/f%04d.bin' % i, bytes([i % 256]) * (100 + i)) for i in range(count)]
            lines = [dict(kind='header', format='devicectl-backup', formatVersion=1, tool='python', created='2026-11-29T12:00:00Z',
                          source=dict(udid='PYTHON-UDID'), apps=[], groups=[], widgets=[])]
            size = files = dirs = 0
            with tarfile.open(out, 'w', format=tarfile.PAX_FORMAT) as t:
                for name, data in entries:
                    info = tarfile.TarInfo(name)
                    info.mtime = 1700000000
                    if data is None:
                        info.type, info.mode = tarfile.DIRTYPE, 0o755
                        t.addfile(info)
                        dirs += 1
                        continue
                    info.size, info.mode = len(data), 0o644
                    lines.append(dict(kind='file', path=name, size=len(data), sha256=hashlib.sha256(data).hexdigest()))
                    if corrupt and name == 'Documents/a.txt':
                        data = b'HELLO\\n'
                    t.addfile(info, io.BytesIO(data))
                    files += 1
                    size += len(data)
                lines.append(dict(kind='totals', files=files, bytes=size, directories=dirs, symlinks=0, hardlinks=0,
                                  excluded=dict(files=0, bytes=0, byReason={})))
                text = ''.join(json.dumps(l, sort_keys=True) + '\\n' for l in lines).encode()
                info = tarfile.TarInfo('.devicectl-manifest.jsonl')
                info.size = len(text)
                t.addfile(info, io.BytesIO(text))
            """
        let result = try Shell.run("python3", ["-c", script, path, String(files), corrupt ? "1" : "0"])
        try #require(result.status == 0, "\(result.stderr)")
    }

    /// A pax archive whose second member climbs out of ROOT.
    static func hostile(_ path: String) throws {
        let script = """
            import io, sys, tarfile
            with tarfile.open(sys.argv[1], 'w', format=tarfile.PAX_FORMAT) as t:
                for name in ['Documents/ok.txt', '../../escaped.txt']:
                    info = tarfile.TarInfo(name)
                    info.size = 3
                    t.addfile(info, io.BytesIO(b'bad'))
            """
        let result = try Shell.run("python3", ["-c", script, path])
        try #require(result.status == 0, "\(result.stderr)")
    }
}

@Suite struct RestoreEndToEndTests {
    @Test func restoresAVerifiedArchiveWithJSONAndLogsIt() throws {
        try PhoneScratch.with { phone in
            let archive = phone.dir + "/backup.tar"
            try RestoreArchives.withManifest(archive)
            let result = try phone.ok(["restore", archive, phone.root, "--json"])
            let json = try PhoneScratch.json(result)
            #expect((json["counts"] as? [String: Any])?["files"] as? Int == 4)
            #expect(json["verified"] as? Bool == true)
            #expect(json["sourceUdid"] as? String == "PYTHON-UDID")
            #expect((json["warnings"] as? [Any])?.isEmpty == true)
            #expect(result.stderr.isEmpty, "under --json stderr carries JSON lines only: \(result.stderr)")
            #expect(try phone.ok(["verify", archive]).stderr.contains("match the manifest's SHA-256"))
            #expect(try String(contentsOfFile: phone.root + "/Documents/a.txt", encoding: .utf8) == "hello\n")
            let events = try String(contentsOfFile: phone.root + "/DeviceLocal/events.jsonl", encoding: .utf8)
            #expect(events.contains("\"type\":\"restore\""))
            #expect(events.contains("PYTHON-UDID"))
        }
    }

    @Test func progressIsDrawnOnRequestAndErasedBeforeTheSummary() throws {
        try PhoneScratch.with { phone in
            let archive = phone.dir + "/backup.tar"
            try RestoreArchives.withManifest(archive)
            let drawn = try phone.ok(["restore", archive, phone.root, "--progress"])
            #expect(drawn.stderr.contains("\r\u{1B}[2Krestoring "), "\(drawn.stderr)")
            #expect(drawn.stderr.contains("\r\u{1B}[2Kdevicectl: restored"), "\(drawn.stderr)")
            // A file archive: the share of it read so far, as a bar and a percentage.
            #expect(drawn.stderr.range(of: #"restoring  \[[#-]{24}\] +[0-9]{1,3}%"#, options: .regularExpression) != nil,
                    "\(drawn.stderr)")
            let quiet = phone.dir + "/quiet"
            let silent = try phone.ok(["restore", archive, quiet])
            #expect(!silent.stderr.contains("restoring "))
        }
    }

    @Test func restoresFromStandardInputOntoAMissingRoot() throws {
        try PhoneScratch.with(initialised: false) { phone in
            let archive = phone.dir + "/backup.tar"
            try RestoreArchives.withManifest(archive)
            let result = try DevicectlBinary.run(
                ["restore", "-", phone.root], input: try Data(contentsOf: URL(fileURLWithPath: archive)))
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains("initialised as a new device"))
            #expect(FileManager.default.fileExists(atPath: phone.root + "/DeviceLocal/identity.plist"))
            #expect(FileManager.default.fileExists(atPath: phone.root + "/Documents/f0002.bin"))
        }
    }

    @Test func gnuTarArchiveRestoresWithAWarning() throws {
        try PhoneScratch.with { phone in
            let source = phone.dir + "/source"
            try FileManager.default.createDirectory(atPath: source + "/Media", withIntermediateDirectories: true)
            try Data("movie".utf8).write(to: URL(fileURLWithPath: source + "/Media/m.mov"))
            try Shell.run("tar", ["-cJf", phone.dir + "/plain.tar.xz", "-C", source, "."])
            let result = try phone.ok(["restore", phone.dir + "/plain.tar.xz", phone.root])
            #expect(result.stderr.contains("devicectl: warning: the archive has no devicectl manifest"))
            #expect(try String(contentsOfFile: phone.root + "/Media/m.mov", encoding: .utf8) == "movie")
        }
    }

    @Test func hostileDamagedOrMismatchedArchivesChangeNothing() throws {
        try PhoneScratch.with { phone in
            let before = try phone.snapshot()
            let hostile = phone.dir + "/hostile.tar"
            try RestoreArchives.hostile(hostile)
            try phone.fails(
                ["restore", hostile, phone.root], mentioning: ["'../../escaped.txt'", "nothing was restored"])
            let mismatched = phone.dir + "/mismatched.tar"
            try RestoreArchives.withManifest(mismatched, corrupt: true)
            try phone.fails(
                ["restore", mismatched, phone.root], mentioning: ["SHA-256 mismatch for 'Documents/a.txt'"])
            let truncated = phone.dir + "/truncated.tar"
            let bytes = try Data(contentsOf: URL(fileURLWithPath: mismatched))
            try bytes.prefix(3000).write(to: URL(fileURLWithPath: truncated))
            try phone.fails(["restore", truncated, phone.root], mentioning: ["nothing was restored"])
            #expect(try phone.snapshot() == before)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: phone.dir).sorted() == [
                    "hostile.tar", "mismatched.tar", "phone", "truncated.tar",
                ])
        }
    }

    @Test func refusesADeviceInUseAndBadArguments() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            let archive = phone.dir + "/backup.tar"
            try RestoreArchives.withManifest(archive)
            let before = try phone.snapshot()
            try phone.fails(["restore", archive, phone.root], mentioning: ["is not a fresh device"])
            #expect(try phone.snapshot() == before)
            try phone.fails(["restore", archive], status: 64, mentioning: ["missing argument ROOT"])
            try phone.fails(["restore", phone.dir + "/nothing.tar", phone.dir + "/new"], mentioning: ["nothing.tar"])
            #expect(!FileManager.default.fileExists(atPath: phone.dir + "/new"))
        }
    }

    /// A real SIGINT while the restore waits for more of the archive on stdin: exit 1, ROOT unchanged.
    @Test func sigintMidRestoreUndoesEverything() throws {
        try PhoneScratch.with { phone in
            let archive = phone.dir + "/big.tar"
            try RestoreArchives.withManifest(archive, files: 3000)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
            try FileManager.default.removeItem(atPath: archive)
            let before = try phone.snapshot()
            let input = Pipe()
            let restore = try ChildProcess.devicectl(["restore", "-", phone.root], input: input.fileHandleForReading)
            try input.fileHandleForWriting.write(contentsOf: bytes.prefix(bytes.count / 2))
            // Wait until the staging directory exists and files are landing in it.
            var staging: String?
            restore.wait(upTo: 20) {
                staging = (try? FileManager.default.contentsOfDirectory(atPath: phone.root))?.first {
                    $0.hasPrefix(".devicectl-restore-")
                }
                guard let staging else { return false }
                return FileManager.default.fileExists(atPath: phone.root + "/" + staging + "/Documents/a.txt")
            }
            #expect(staging != nil)
            restore.signal(SIGINT)
            try input.fileHandleForWriting.close()
            let stderr = restore.stderr
            #expect(restore.status == 128 + SIGINT, "\(stderr)")
            #expect(stderr.contains("interrupted by SIGINT"), "\(stderr)")
            #expect(try phone.snapshot() == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: phone.dir) == ["phone"])
        }
    }
}
