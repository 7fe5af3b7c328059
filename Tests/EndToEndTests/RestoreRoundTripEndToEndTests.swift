// RestoreRoundTripEndToEndTests: `devicectl backup` then `devicectl restore` onto a new device keeps every
// byte and every piece of metadata (modes, mtimes to the ns, owners, symlinks, hard links, user xattrs), the
// apps and the home screen; verify and list agree.
import Foundation
import TestSupport
import Testing

@Suite struct RestoreRoundTripEndToEndTests {
    /// User data with every kind of metadata, in the app's data and App Group containers.
    static func fill(_ phone: PhoneScratch) throws {
        let data = try phone.containerPath("Containers/Data/Application", "com.example.news")
        let group = try phone.containerPath("Containers/Shared/AppGroup", "group.com.example.news")
        let script = """
            set -e
            cd "$1/Documents"
            mkdir -p articles/deep 'ünïcødé dir'
            printf 'hello\\n' > articles/a.txt
            head -c 300000 /dev/urandom > articles/big.bin
            : > articles/empty
            ln -s a.txt articles/link
            ln -s ../articles articles/deep/up
            ln articles/a.txt articles/deep/hard
            printf x > "ünïcødé dir/$(printf 'n%.0s' $(seq 1 150))"
            chmod 600 articles/a.txt
            chmod 750 articles/deep
            chown 1234:5678 articles/empty
            setfattr -n user.note -v kept articles/big.bin
            touch -d '2021-02-03 04:05:06.123456789' articles/a.txt articles/deep
            touch -h -d '2020-01-01 00:00:00.5' articles/link
            printf 'shared' > "$2/Library/shared.txt"
            """
        try Shell.run("/bin/sh", ["-c", script, "sh", data, group])
    }

    /// The tree as `find` sees it, without what a backup never carries (bundles, Caches, tmp, SystemData, DeviceLocal).
    static func userTree(_ root: String) throws -> [String] {
        let listing = try Shell.run(
            "/bin/sh",
            [
                "-c",
                """
                cd "$1" && find . -path ./DeviceLocal -prune -o -path ./Containers/Bundle -prune -o \\
                  -path '*/Library/Caches' -prune -o -path '*/tmp' -prune -o -path '*/SystemData' -prune -o \\
                  ! -path . -printf '%y %m %s %T@ %U:%G %n %l %p\\n' | sort
                """, "sh", root,
            ]
        ).stdout
        return listing.split(separator: "\n").map(String.init)
    }

    @Test(arguments: ["phone.tar", "phone.tar.zst"])
    func backupThenRestoreIsExact(_ name: String) throws {
        try PhoneScratch.with { phone in
            try phone.install()
            try phone.ok(["widget", "add", phone.root, "--app", "com.example.news"])
            try Self.fill(phone)
            let archive = phone.dir + "/" + name
            try phone.ok(["backup", phone.root, "-o", archive, "--no-progress"])
            let verify = try PhoneScratch.json(try phone.ok(["verify", archive, "--json"]))
            #expect(verify["ok"] as? Bool == true)
            let list = try PhoneScratch.json(try phone.ok(["list", archive, "--json"]))
            #expect(((list["manifest"] as? [String: Any])?["apps"] as? [Any])?.count == 1)

            let newPhone = phone.dir + "/new-phone"
            let restored = try PhoneScratch.json(try phone.ok(["restore", archive, newPhone, "--json"]))
            #expect(restored["verified"] as? Bool == true)
            #expect(restored["apps"] as? [String] == ["com.example.news"])
            #expect(try Self.userTree(newPhone) == Self.userTree(phone.root))
            let xattr = try Shell.run(
                "getfattr",
                [
                    "--only-values", "-n", "user.note", "--absolute-names",
                    try phone.containerPath("Containers/Data/Application", "com.example.news")
                        + "/Documents/articles/big.bin",
                ])
            #expect(xattr.stdout == "kept")
            let old = try PhoneScratch.json(try phone.ok(["status", phone.root, "--json"]))
            let new = try PhoneScratch.json(try phone.ok(["status", newPhone, "--json"]))
            #expect(new["udid"] as? String != old["udid"] as? String)
            #expect((new["widgets"] as? [Any])?.count == (old["widgets"] as? [Any])?.count)
            #expect((new["apps"] as? [Any])?.count == 1)
        }
    }

    @Test func backupThroughAPipeRestoresFromStandardInput() throws {
        try PhoneScratch.with { phone in
            try phone.install()
            try Self.fill(phone)
            let backup = try phone.ok(["backup", phone.root, "-o", "-", "--compression", "gzip", "--no-progress"])
            let newPhone = phone.dir + "/new-phone"
            let restore = try DevicectlBinary.run(["restore", "-", newPhone], input: backup.stdoutData)
            #expect(restore.status == 0, "\(restore.stderr)")
            #expect(try Self.userTree(newPhone) == Self.userTree(phone.root))
        }
    }
}
