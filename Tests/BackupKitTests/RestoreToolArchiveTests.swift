// RestoreToolArchiveTests: archives made by GNU tar and bsdtar (no manifest) restore with a warning, exactly.
import BackupKit
import Foundation
import SystemKit
import TestSupport
import Testing

@Suite struct RestoreToolArchiveTests {
    /// A source tree with every kind of entry the restore keeps, made with the real tools.
    static func makeSource(_ source: String) throws {
        let script = """
            set -e
            cd "$1"
            mkdir -p Documents/nested/deeper Media
            printf 'hello\\n' > Documents/a.txt
            head -c 200000 /dev/urandom > Media/random.bin
            : > Documents/empty
            printf 'x' > 'Documents/ünïcødé name'
            ln -s a.txt Documents/link
            ln -s ../Documents/nested Media/dirlink
            ln Documents/a.txt Documents/nested/hard
            chmod 600 Documents/a.txt
            chmod 750 Documents/nested
            chmod 1777 Media
            chown 1234:5678 Documents/empty
            setfattr -n user.note -v kept Documents/empty
            truncate -s 3000000 Media/sparse
            printf 'tail' >> Media/sparse
            touch -h -d '2020-01-02 03:04:05.123456789' Documents/link
            touch -d '2019-05-06 07:08:09.987654321' Documents/a.txt Documents/nested/deeper Documents
            """
        try Shell.run("/bin/sh", ["-c", script, "sh", source])
    }

    static let archivers: [(name: String, arguments: [String])] = [
        ("GNU tar, gnu format", ["tar", "--format=gnu", "-cf"]),
        ("GNU tar, posix format, xattrs, gzip", ["tar", "--format=posix", "--xattrs", "-z", "-cf"]),
        ("GNU tar, sparse, xz", ["tar", "--format=posix", "-S", "-J", "-cf"]),
        ("bsdtar, pax, zstd", ["bsdtar", "--format=pax", "--zstd", "-cf"]),
        ("bsdtar, ustar, bzip2", ["bsdtar", "--format=ustar", "-j", "-cf"]),
    ]

    @Test(arguments: archivers.indices)
    func toolArchiveRestoresWithWarning(_ index: Int) throws {
        let archiver = Self.archivers[index]
        try withTemporaryDirectory { base in
            let scratch = try RestoreScratch(base: base)
            let source = base + "/source"
            try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
            try Self.makeSource(source)
            let made = try Shell.run(
                archiver.arguments[0], Array(archiver.arguments.dropFirst()) + [scratch.archive, "-C", source, "."])
            #expect(made.status == 0, "\(made.stderr)")
            let report = try scratch.restore()
            #expect(!report.verified)
            #expect(report.warnings.contains { $0.contains("nothing could be verified") })
            for top in ["Documents", "Media"] {
                var expected = try TreeSnapshot.take(source + "/" + top)
                var restored = try TreeSnapshot.take(scratch.root + "/" + top)
                if archiver.name.contains("gnu format") || archiver.name.contains("ustar") {
                    // These formats store whole seconds and no xattrs: compare without them.
                    expected = expected.mapValues(Self.withoutSubseconds)
                    restored = restored.mapValues(Self.withoutSubseconds)
                }
                if !archiver.arguments.contains("--xattrs") && !archiver.name.contains("bsdtar, pax") {
                    expected = expected.mapValues(Self.withoutXattrs)
                }
                #expect(restored == expected, "\(archiver.name) \(top): \(snapshotDifference(expected, restored))")
            }
        }
    }

    static func withoutSubseconds(_ line: String) -> String {
        line.replacing(/mtime=(\d+)\.\d+/) { "mtime=\($0.1)" }
    }

    static func withoutXattrs(_ line: String) -> String {
        line.replacing(/\ user\.[^ ]+=\[[^\]]*\]/, with: "")
    }
}
