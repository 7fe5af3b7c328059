// OneFileSystemEndToEndTests: `backup --one-file-system` stores a mount point inside the tree as an empty directory
// and not what is mounted on it (GNU tar's "file is on a different file system; not dumped"); without the option the
// mounted tree is archived, as before. A tmpfs in a private mount namespace is the other file system.
import Foundation
import TestSupport
import Testing

@Suite struct OneFileSystemEndToEndTests {
    /// Runs `script` in a private mount namespace where `$1/tree/Documents/mnt` is a fresh tmpfs holding `x`;
    /// `$2` is devicectl; `$1` a scratch directory.
    static func inNamespace(_ script: String) throws -> RunResult {
        try withTemporaryDirectory { dir throws -> RunResult in
            try FileManager.default.createDirectory(atPath: dir + "/tree/Documents/mnt", withIntermediateDirectories: true)
            try Data("a".utf8).write(to: URL(fileURLWithPath: dir + "/tree/Documents/a.txt"))
            return try Shell.run(
                "unshare",
                [
                    "--mount", "--propagation", "private", "sh", "-c",
                    "mount -t tmpfs none \"$1/tree/Documents/mnt\" || exit 99\necho x > \"$1/tree/Documents/mnt/x\"\n"
                        + script,
                    "sh", dir, DevicectlBinary.path,
                ],
                environment: ["DEVICECTL_NOW": BackupCheck.now])
        }
    }

    @Test(.enabled(if: RamfsNamespace.available, "needs unshare and mount (root)"))
    func aMountPointIsStoredEmptyAndItsContentsAreNot() throws {
        let result = try Self.inNamespace("""
            "$2" backup "$1/tree" -o "$1/one.tar" --one-file-system --no-progress 2> "$1/err" || exit 1
            "$2" backup "$1/tree" -o "$1/all.tar" --no-progress 2> /dev/null || exit 2
            "$2" backup "$1/tree" -o "$1/dry.tar" --one-file-system --dry-run 2>&1 | grep 'would not be dumped' || exit 3
            echo ONE; tar -tf "$1/one.tar"; echo ALL; tar -tf "$1/all.tar"; echo ERR; cat "$1/err"
            """)
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        let sections = result.stdout.components(separatedBy: "\n")
        let one = Array(sections.drop { $0 != "ONE" }.dropFirst().prefix { $0 != "ALL" })
        let all = Array(sections.drop { $0 != "ALL" }.dropFirst().prefix { $0 != "ERR" })
        #expect(one.filter { !$0.hasPrefix(".devicectl") } == ["Documents/", "Documents/a.txt", "Documents/mnt/"])
        #expect(all.contains("Documents/mnt/x"), "without the option the mount is archived: \(all)")
        #expect(result.stdout.contains("Documents/mnt: file is on a different file system; not dumped"))
        #expect(result.stdout.contains("Documents/mnt: file is on a different file system; its contents would not be dumped"))
    }
}
