// RestoreSiblingTests: two restores onto one absent ROOT each build a sibling; one's sweep of stale siblings can
// take the other's for stale in the moment between its mkdirat and its lock. The sibling's maker then makes another.
@testable import BackupKit
import Foundation
import Glibc
import SystemKit
import TestSupport
import Testing

@Suite struct RestoreSiblingTests {
    /// The sweep runs right after the mkdirat (the window a concurrent restore hit about once in forty runs on a
    /// busy machine: "could not open its working files: no such file or directory"): the sibling is made again
    /// under another name, locked, and is the only one left.
    @Test func aSiblingSweptBeforeItIsOpenedIsMadeAgain() throws {
        try withTemporaryDirectory { dir in
            let rootName = Array("phone".utf8)
            var swept: [String] = []
            var made: [String] = []
            let sibling = try RestoreSibling(
                parent: try FileDescriptor.open(dir, flags: O_RDONLY | O_DIRECTORY), parentPath: dir,
                rootName: rootName,
                afterCreating: { name in
                    made.append(name)
                    guard swept.isEmpty else { return }
                    let parent = try! FileDescriptor.open(dir, flags: O_RDONLY | O_DIRECTORY)
                    swept = try! RestoreSibling.removeStale(in: parent, parentPath: dir, rootName: rootName)
                })
            #expect(made.count == 2, "\(made)")
            #expect(swept == [made[0]])
            let left = try FileManager.default.contentsOfDirectory(atPath: dir)
            #expect(left == [made[1]])
            #expect(sibling.path == dir + "/" + made[1])
            // Locked: a sweep now leaves it alone.
            let parent = try FileDescriptor.open(dir, flags: O_RDONLY | O_DIRECTORY)
            #expect(try RestoreSibling.removeStale(in: parent, parentPath: dir, rootName: rootName).isEmpty)
        }
    }
}
