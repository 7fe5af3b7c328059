// RestoreModesEndToEndTests: directories whose modes forbid writing (0500, 0555, 0000), at the top level and
// nested, restore as a user other than root (the modes are applied once nothing more is written into them, the
// top-level ones after the move into ROOT), with the modes and times GNU tar gives the same archive.
import Foundation
import SystemKit
import TestSupport
import Testing

@Suite struct RestoreModesEndToEndTests {
    static let asNobody = ["--reuid=nobody", "--regid=nogroup", "--clear-groups"]
    static let paths = [
        "open", "open/deep0", "open/deep0/f", "top0", "top0/d", "top5", "top5/a", "top5/nested5", "top5/nested5/b",
        "top5/nested5/zero", "top5/nested5/zero/c", "top555", "top555/x", "top555/x/e",
    ]

    @Test func readOnlyDirectoriesRestoreAsNobodyAsGNUTarExtractsThem() throws {
        try withTemporaryDirectory { base in
            let made = try Shell.run(
                "/bin/sh",
                [
                    "-c",
                    """
                    set -e
                    cd "$1"; chmod 755 .
                    mkdir -p src/top5/nested5/zero src/top0 src/top555/x src/open/deep0 out
                    echo a > src/top5/a; echo b > src/top5/nested5/b; echo c > src/top5/nested5/zero/c
                    echo d > src/top0/d; echo e > src/top555/x/e; echo f > src/open/deep0/f
                    find src -mindepth 1 -exec touch -d 2024-01-02T03:04:05Z {} +
                    chmod 0000 src/top5/nested5/zero src/top0 src/open/deep0
                    chmod 0555 src/top5/nested5 src/top555; chmod 0500 src/top5 src/top555/x
                    tar --numeric-owner -cf archive.tar -C src open top0 top5 top555
                    chmod 644 archive.tar; chown nobody:nogroup out
                    """, "sh", base,
                ])
            try #require(made.status == 0, "\(made.stderr)")
            let restored = try Shell.run(
                "setpriv", Self.asNobody + [DevicectlBinary.path, "restore", base + "/archive.tar", base + "/out/dev"])
            #expect(restored.status == 0, "\(restored.stderr)")
            let extract = "mkdir \"$1/out/tar\" && tar -xpf \"$1/archive.tar\" -C \"$1/out/tar\""
            let extracted = try Shell.run("setpriv", Self.asNobody + ["/bin/sh", "-c", extract, "sh", base])
            try #require(extracted.status == 0, "\(extracted.stderr)")
            for path in Self.paths {
                let tar = try FileStatus.of("\(base)/out/tar/\(path)")
                let ours = try FileStatus.of("\(base)/out/dev/\(path)")
                #expect(ours.permissions == tar.permissions, "\(path): \(String(ours.permissions, radix: 8))")
                #expect(ours.mtimeSeconds == tar.mtimeSeconds, "\(path)")
                #expect(ours.uid == 65534 && ours.kind == tar.kind, "\(path)")
            }
            #expect(try FileStatus.of(base + "/out/dev/top5").permissions == 0o500)
            #expect(try FileStatus.of(base + "/out/dev/top5/nested5/zero").permissions == 0)
        }
    }
}
