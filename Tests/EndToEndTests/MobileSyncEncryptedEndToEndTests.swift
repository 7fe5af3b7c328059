// MobileSyncEncryptedEndToEndTests: `backup --format mobilesync --encrypt` writes what two independent readers
// decrypt byte for byte (iphone-backup-decrypt, strict about padding and classes; pyiosbackup, its own crypto), at
// test iteration counts and once at a device's; the password never comes from the command line.
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct MobileSyncEncryptedEndToEndTests {
    static let password = "correct horse battery staple"
    static let documents = ["sub/a.txt", "empty", "Résumé 📱.txt", "hard.txt"]

    /// Decrypts with iphone-backup-decrypt: every row (domain, path, flags) and, for each `domain|path` asked, the
    /// SHA-256 of the extracted bytes; `wrong` is whether a wrong password was refused.
    static let decrypter = #"""
        import hashlib, json, sys
        from iphone_backup_decrypt import EncryptedBackup
        from iphone_backup_decrypt.exceptions import IncorrectPassphraseError
        top, password = sys.argv[1], sys.argv[2]
        try:
            EncryptedBackup(backup_directory=top, passphrase='not ' + password).test_decryption()
            wrong = False
        except IncorrectPassphraseError:
            wrong = True
        backup = EncryptedBackup(backup_directory=top, passphrase=password)
        with backup.manifest_db_cursor() as cursor:
            cursor.execute('SELECT domain, relativePath, flags FROM Files')
            rows = sorted('%s|%s|%d' % row for row in cursor.fetchall())
        digests = {}
        for item in sys.argv[3:]:
            domain, path = item.split('|', 1)
            digests[item] = hashlib.sha256(backup.extract_file_as_bytes(path, domain_like=domain)).hexdigest()
        print(json.dumps({'rows': rows, 'digests': digests, 'wrong': wrong}))
        """#

    struct Decrypted: Decodable {
        let rows: [String]
        let digests: [String: String]
        let wrong: Bool
    }

    static func backUp(_ root: String, to backup: String, iterations: String? = "1000,100") throws {
        let result = try BackupCheck.devicectl(
            ["backup", root, "--format", "mobilesync", "--encrypt", "-o", backup, "-q"]
                + (iterations.map { ["--kdf-iterations", $0] } ?? []),
            environment: ["DEVICECTL_BACKUP_PASSWORD": password])
        #expect(result.status == 0, "\(result.stderr)")
    }

    static func requireOracles() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: MobileSyncInteropTests.python),
            "no oracle venv at \(MobileSyncInteropTests.python): run 'make oracles' (make test does)")
    }

    @Test func iphoneBackupDecryptDecryptsEveryFileAndRefusesAWrongPassword() throws {
        try Self.requireOracles()
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone", encrypted = scratch + "/encrypted", plain = scratch + "/plain"
            let data = try MobileSyncBackupEndToEndTests.phone(root)
            // Larger than a batch of the content-file thread: encrypted in pieces, one CBC chain; over 1 MiB, read
            // after the walk while Manifest.db is encrypted (`BackupEngine.mobileSyncDeferFrom`). Files at the
            // edges of the ones encrypted several at once (`FileBatchCipher`: a padding block of their own, the
            // longest it takes, one byte more), and a run of small ones that share batches.
            let edges = [15, 16, 65_519, 65_520] + (1...40).map { $0 * 1_531 % 20_000 }
            let documents =
                Self.documents + ["big.bin", "huge.bin"] + edges.enumerated().map { "edge-\($0.offset)-\($0.element)" }
            try Data((0..<600_007).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) })
                .write(to: URL(fileURLWithPath: data + "/Documents/big.bin"))
            try Data((0..<1_052_677).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 3) })
                .write(to: URL(fileURLWithPath: data + "/Documents/huge.bin"))
            for (index, length) in edges.enumerated() {
                try Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ index) })
                    .write(to: URL(fileURLWithPath: data + "/Documents/edge-\(index)-\(length)"))
            }
            try Self.backUp(root, to: encrypted)
            let made = try BackupCheck.devicectl(["backup", root, "--format", "mobilesync", "-o", plain, "-q"])
            #expect(made.status == 0, "\(made.stderr)")
            let app = "AppDomain-\(NudgeFixture.news)", group = MobileSyncBackupEndToEndTests.group
            let flag = "AppDomainGroup-\(group)|Library/Preferences/\(group).plist"
            let wanted = documents.map { "\(app)|Documents/\($0)" } + [flag, "HomeDomain|Library/SpringBoard/IconState.plist"]
            let before = try TreeSnapshot.take(encrypted)
            let run = try Shell.run(
                MobileSyncInteropTests.python, ["-c", Self.decrypter, encrypted, Self.password] + wanted, directory: scratch)
            try #require(run.status == 0, "iphone-backup-decrypt: \(run.stderr)")
            let decrypted = try JSONDecoder().decode(Decrypted.self, from: run.stdoutData)
            #expect(decrypted.wrong)
            #expect(try TreeSnapshot.take(encrypted) == before)
            // The same rows as the plain backup of the same device (read with Python's standard library).
            let plainRows = try MobileSyncCheck.read(plain).rows.map { "\($0.domain)|\($0.path)|\($0.flags)" }.sorted()
            #expect(decrypted.rows == plainRows)
            for name in documents {
                #expect(decrypted.digests["\(app)|Documents/\(name)"] == (try MobileSyncCheck.sha256(of: data + "/Documents/" + name)), "\(name)")
            }
            #expect(decrypted.digests[flag] == (try MobileSyncCheck.sha256(of: NudgeFixture.suitePath(root))))
            // Nothing in the clear beside it: no devicectl manifest, an encrypted Manifest.db, the keybag's counts.
            #expect(!FileManager.default.fileExists(atPath: encrypted + "/devicectl-manifest.jsonl"))
            let check = try Shell.run("python3", ["-c", """
                import plistlib, sys
                top = sys.argv[1]
                m = plistlib.load(open(top + '/Manifest.plist', 'rb'))
                bag, items, i = m['BackupKeyBag'], {}, 0
                while i < len(bag):
                    tag, n = bag[i:i+4].decode(), int.from_bytes(bag[i+4:i+8], 'big')
                    items.setdefault(tag, bag[i+8:i+8+n]); i += 8 + n
                print(m['IsEncrypted'], len(m['ManifestKey']), m['ManifestKey'][:4].hex(),
                      int.from_bytes(items['DPIC'], 'big'), int.from_bytes(items['ITER'], 'big'),
                      open(top + '/Manifest.db', 'rb').read(16).startswith(b'SQLite format 3'))
                """, encrypted])
            #expect(check.stdout == "True 44 04000000 1000 100 False\n", "\(check.stderr)")
            let verify = try BackupCheck.devicectl(["verify", encrypted])
            #expect(verify.status == 1 && verify.stderr.contains("is an encrypted backup: give its password"), "\(verify.stderr)")
        }
    }

    @Test func pyiosbackupDecryptsWithItsOwnCrypto() throws {
        try Self.requireOracles()
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone", encrypted = scratch + "/encrypted"
            let data = try MobileSyncBackupEndToEndTests.phone(root)
            try Self.backUp(root, to: encrypted)
            let run = try Shell.run(MobileSyncInteropTests.python, ["-c", """
                import hashlib, sys
                from pyiosbackup import Backup
                backup = Backup.from_path(sys.argv[1], password=sys.argv[2])
                for name in sys.argv[3:]:
                    entry = backup.get_entry_by_domain_and_path('AppDomain-com.example.news', 'Documents/' + name)
                    print(hashlib.sha256(entry.read_bytes()).hexdigest())
                """, encrypted, Self.password] + Self.documents)
            try #require(run.status == 0, "pyiosbackup: \(run.stderr)")
            let expected = try Self.documents.map { try MobileSyncCheck.sha256(of: data + "/Documents/" + $0) }
            #expect(run.stdout.split(separator: "\n").map(String.init) == expected)
        }
    }

    /// The device's counts (10,000,000 SHA-256 rounds, then 10,000 SHA-1): once, as a test of the default.
    @Test func aBackupAtTheDevicesIterationCountsDecrypts() throws {
        try Self.requireOracles()
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone", encrypted = scratch + "/encrypted"
            try NudgeFixture.phone(root)
            try Self.backUp(root, to: encrypted, iterations: nil)
            let home = "HomeDomain|Library/SpringBoard/IconState.plist"
            let run = try Shell.run(
                MobileSyncInteropTests.python, ["-c", Self.decrypter, encrypted, Self.password, home], directory: scratch)
            try #require(run.status == 0, "iphone-backup-decrypt: \(run.stderr)")
            let decrypted = try JSONDecoder().decode(Decrypted.self, from: run.stdoutData)
            #expect(decrypted.wrong)
            #expect(decrypted.digests[home] == (try MobileSyncCheck.sha256(of: root + "/Library/SpringBoard/IconState.plist")))
        }
    }

    @Test func thePasswordNeverComesFromTheCommandLine() throws {
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone", out = scratch + "/b"
            try NudgeFixture.phone(root)
            for (arguments, environment, message) in [
                (["--encrypt"], [:], "--encrypt needs a password"),
                (["--encrypt", "--format", "tar", "-o", scratch + "/x.tar"], ["DEVICECTL_BACKUP_PASSWORD": "x"], "--encrypt goes with --format mobilesync"),
                (["--password-file", "/dev/null"], [:], "--password-file and --kdf-iterations go with --encrypt"),
                (["--encrypt", "--kdf-iterations", "10"], ["DEVICECTL_BACKUP_PASSWORD": "x"], "two counts"),
                (["--encrypt"], ["DEVICECTL_BACKUP_PASSWORD": ""], "the backup password is empty"),
                // A file that is not there, or a directory (never read as an empty password).
                (["--encrypt", "--password-file", scratch + "/none"], [:],
                 "cannot read the password file \(scratch)/none: no such file or directory"),
                (["--encrypt", "--password-file", scratch], [:], "cannot read the password file \(scratch): is a directory"),
            ] as [([String], [String: String], String)] {
                let base = arguments.contains("tar") ? ["backup", root] : ["backup", root, "--format", "mobilesync", "-o", out]
                let result = try BackupCheck.devicectl(base + arguments, environment: environment)
                #expect(result.status == 64 && result.stderr.contains(message), "\(arguments): \(result.stderr)")
            }
            #expect(try directoryNames(in: scratch) == ["phone"])
            // A password file: its first line.
            try Data("\(Self.password)\nignored\n".utf8).write(to: URL(fileURLWithPath: scratch + "/password"))
            let made = try BackupCheck.devicectl(
                ["backup", root, "--format", "mobilesync", "--encrypt", "--kdf-iterations", "1000,100", "-o", out, "-q",
                 "--password-file", scratch + "/password"])
            #expect(made.status == 0, "\(made.stderr)")
        }
    }

    /// devicectl reads encrypted backups: its own, and ones encrypted with Python's `cryptography` (two-stage, and
    /// pre-iOS 10.2's one stage with a plain Manifest.db); a wrong password, or none, is one clear line; the
    /// decrypted Manifest.db leaves nothing in the temporary directory; the backup is unchanged.
    @Test func listAndVerifyDecryptTheirOwnAndOthersEncryptedBackups() throws {
        try Self.requireOracles()
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone", own = scratch + "/own", temporary = scratch + "/tmp"
            try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
            _ = try MobileSyncBackupEndToEndTests.phone(root)
            try Self.backUp(root, to: own)
            let twoStage = scratch + "/two", oneStage = scratch + "/one"
            try ForeignBackup.make(twoStage)
            try ForeignBackup.encrypt(twoStage, password: Self.password)
            try ForeignBackup.make(oneStage)
            try ForeignBackup.encrypt(oneStage, password: Self.password, stages: 1)
            for backup in [own, twoStage, oneStage] {
                let before = try TreeSnapshot.take(backup)
                let environment = ["DEVICECTL_BACKUP_PASSWORD": Self.password, "TMPDIR": temporary]
                let verified = try BackupCheck.devicectl(["verify", backup], environment: environment)
                #expect(verified.status == 0 && verified.stderr.contains("is intact"), "\(backup): \(verified.stderr)")
                let listed = try BackupCheck.devicectl(["list", backup, "--summary"], environment: environment)
                #expect(listed.status == 0 && listed.stdout.contains("(encrypted)"), "\(listed.stdout)")
                let wrong = try BackupCheck.devicectl(
                    ["verify", backup], environment: ["DEVICECTL_BACKUP_PASSWORD": "wrong", "TMPDIR": temporary])
                #expect(wrong.status == 1 && wrong.stderr == "devicectl: wrong password for backup \(backup)\n", "\(wrong.stderr)")
                #expect(try TreeSnapshot.take(backup) == before)
                #expect(try directoryNames(in: temporary) == [])
            }
            let none = try BackupCheck.devicectl(["list", own])
            #expect(none.status == 1 && none.stderr.contains("is an encrypted backup: give its password"), "\(none.stderr)")
            // pyiosbackup's decrypted copy (IsEncrypted and ManifestKey kept, Manifest.db and files plain) reads
            // without a password, as mvt reads one.
            let copy = scratch + "/copy"
            let extracted = try Shell.run(MobileSyncInteropTests.python, ["-c", """
                import sys
                from pyiosbackup import Backup
                Backup.from_path(sys.argv[1], password=sys.argv[2]).extract_all(sys.argv[3])
                """, own, Self.password, copy])
            try #require(extracted.status == 0, "pyiosbackup: \(extracted.stderr)")
            let plainCopy = try BackupCheck.devicectl(["verify", copy])
            #expect(plainCopy.status == 0 && plainCopy.stderr.contains("is intact"), "\(plainCopy.stderr)")
            let copyList = try BackupCheck.devicectl(["list", copy, "--summary"])
            #expect(copyList.stdout.contains("(encrypted; decrypted by another tool)"), "\(copyList.stdout)")
            // A content file cut short does not decrypt, named.
            let cut = scratch + "/cut"
            try ForeignBackup.make(cut)
            try ForeignBackup.encrypt(cut, password: Self.password, mutation: "truncated")
            let damaged = try BackupCheck.devicectl(
                ["verify", cut], environment: ["DEVICECTL_BACKUP_PASSWORD": Self.password])
            #expect(damaged.status == 1 && damaged.stderr.contains("does not decrypt"), "\(damaged.stderr)")
        }
    }

    /// On a terminal, with no file and no environment variable, the password is asked for twice without echo;
    /// two different answers are refused, two equal ones encrypt (driven through a pseudo-terminal).
    @Test func aTerminalIsAskedTwiceWithoutEcho() throws {
        try Self.requireOracles()
        try withTemporaryDirectory { scratch in
            let root = scratch + "/phone"
            try NudgeFixture.phone(root)
            let driver = #"""
                import os, pty, sys, time
                binary, root, out, first, second = sys.argv[1:6]
                pid, fd = pty.fork()
                if pid == 0:
                    env = {k: v for k, v in os.environ.items() if k != 'DEVICECTL_BACKUP_PASSWORD'}
                    os.execve(binary, [binary, 'backup', root, '--format', 'mobilesync', '--encrypt',
                                       '--kdf-iterations', '1000,100', '-o', out, '-q'], env)
                seen = b''
                def until(text):
                    global seen
                    while text not in seen:
                        chunk = os.read(fd, 1024)
                        if not chunk: raise SystemExit('closed before ' + text.decode())
                        seen += chunk
                until(b'Backup password: '); os.write(fd, first.encode() + b'\n')
                until(b'Again: '); os.write(fd, second.encode() + b'\n')
                while True:
                    try:
                        chunk = os.read(fd, 1024)
                    except OSError:
                        break
                    if not chunk: break
                    seen += chunk
                _, status = os.waitpid(pid, 0)
                print(os.waitstatus_to_exitcode(status))
                print(first.encode() in seen)
                sys.stdout.write(seen.decode(errors='replace'))
                """#
            let mismatch = try Shell.run(
                "python3", ["-c", driver, DevicectlBinary.path, root, scratch + "/a", "one", "two"])
            #expect(mismatch.stdout.hasPrefix("64\nFalse\n") && mismatch.stdout.contains("the two passwords differ"),
                    "\(mismatch.stdout) \(mismatch.stderr)")
            let matched = try Shell.run(
                "python3", ["-c", driver, DevicectlBinary.path, root, scratch + "/b", Self.password, Self.password])
            #expect(matched.stdout.hasPrefix("0\nFalse\n"), "\(matched.stdout) \(matched.stderr)")
            let home = "HomeDomain|Library/SpringBoard/IconState.plist"
            let run = try Shell.run(
                MobileSyncInteropTests.python, ["-c", Self.decrypter, scratch + "/b", Self.password, home], directory: scratch)
            #expect(run.status == 0, "\(run.stderr)")
        }
    }
}
