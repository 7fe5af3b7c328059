// ListTests: `ArchiveListing` yields every member with its metadata and the manifest summary.
import BackupKit
import Foundation
import TestSupport
import Testing

@Suite struct ListTests {
    @Test func membersAndSummary() throws {
        try withTemporaryDirectory { base in
            let app = Manifest.App(
                bundleId: "com.example.news", name: "News", groups: ["group.com.example.news"], widget: nil)
            let bytes = TarBuilder.archive(RestoreTests.members, apps: [app], widgets: ["com.example.news"])
            try Data(bytes).write(to: URL(fileURLWithPath: base + "/a.tar"))
            var seen: [(String, ArchiveReader.Kind, UInt32, Int64, Int32)] = []
            let summary = try ArchiveListing.list(archive: base + "/a.tar") { member in
                seen.append((member.path, member.kind, member.permissions, member.size, member.mtimeNanoseconds))
            }
            #expect(summary.members == UInt64(RestoreTests.members.count + 1))
            #expect(seen.last?.0 == Manifest.memberName)
            #expect(
                seen.contains {
                    $0.0 == "Library/Preferences/a.plist" && $0.1 == .regular && $0.2 == 0o600 && $0.3 == 6 && $0.4 == 1
                })
            #expect(seen.contains { $0.0 == "Library/link" && $0.1 == .symlink })
            #expect(seen.contains { $0.0 == "Library/Preferences/a-again" && $0.1 == .hardLink })
            #expect(seen.contains { $0.0 == "Documents/" && $0.1 == .directory && $0.2 == 0o1777 })
            #expect(summary.header?.apps == [app])
            #expect(summary.header?.widgets.map(\.app) == ["com.example.news"])
            #expect(summary.header?.source.udid == "SOURCE-UDID")
            #expect(summary.totals?.files == 5)
            #expect(summary.manifestProblem == nil)
        }
    }

    @Test func damagedArchiveThrowsAfterListingWhatCameBefore() throws {
        try withTemporaryDirectory { base in
            var bytes = TarBuilder.archive(RestoreTests.members)
            bytes[512 * 6 + 100] ^= 0xFF  // a header in the middle
            try Data(bytes).write(to: URL(fileURLWithPath: base + "/a.tar"))
            var count = 0
            #expect(throws: ArchiveReaderError.self) {
                try ArchiveListing.list(archive: base + "/a.tar") { _ in count += 1 }
            }
            #expect(count > 0)
        }
    }
}
