// ArchiveScenarioTests: what travels in the archive and how (scenarios 11, 12 and 13): only the marker stays
// behind, every compression and a pipe give the same restored phone, and a phone in use is never overwritten.
import Foundation
import SystemKit
import TestSupport
import Testing

@Suite("Archives: what travels, and where it may land")
struct ArchiveScenarioTests {
    let news = App.news

    /// An old phone with the app launched (marker and flag written) and user data in its App Group.
    func usedPhone(_ root: String) throws -> Phone {
        let phone = try Phone.fresh(root, apps: [news])
        try phone.addGroupData(news)
        try phone.launch(news, at: Clock.start)
        return phone
    }

    @Test("11. Only the marker is left behind: every other file and default in the App Group arrives intact")
    func appGroupArrivesIntactExceptTheMarker() throws {
        try withTemporaryDirectory { dir in
            let old = try usedPhone("\(dir)/old")
            let group = try #require(news.group)
            let oldGroup = try TreeSnapshot(try old.groupContainer(group))
            let oldDefaults = try Devicectl.succeed(["defaults", "read", old.root, group], at: Clock.start).stdout

            let new = try old.migrate(to: "\(dir)/new", in: dir)
            let newGroup = try TreeSnapshot(try new.groupContainer(group))
            let marker = "device-restoration-marker.txt"
            #expect(oldGroup.entries[marker]?.kind == .regular && newGroup.entries[marker] == nil)
            #expect(oldGroup.entries.count > 10)
            #expect(
                oldGroup.entries["Documents/articles.json"]?.xattrs["user.com.example.source"] == Array("feed-7".utf8))
            #expect(oldGroup.entries["Documents/latest"]?.target == "articles.json")
            let logo = oldGroup.entries["Documents/images/logo é.png"]
            #expect(logo?.mtimeSeconds == 1_700_000_000 && logo?.mtimeNanoseconds == 123_456_789)
            let differences = newGroup.differences(from: oldGroup.removing { $0 == marker })
            #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")

            #expect(
                try Devicectl.succeed(["defaults", "read", new.root, group], at: Clock.restore).stdout == oldDefaults)
            for key in ["lastArticle", "unreadCount", "fontScale", "darkMode", "notificationEnabled"] {
                #expect(oldDefaults.contains("\(key) = "), "\(key) missing from \(oldDefaults)")
            }
        }
    }

    @Test(
        "12. gzip, zstd and xz archives and a pipe (backup -o - | restore -) restore the same phone as a plain tar",
        arguments: [Phone.Transfer.gzip, .zstd, .xz, .pipe])
    func everyTransferRestoresTheSamePhone(transfer: Phone.Transfer) throws {
        try withTemporaryDirectory { dir in
            let old = try usedPhone("\(dir)/old")
            let plain = try old.migrate(to: "\(dir)/plain", via: .tar, in: dir)
            let other = try old.migrate(to: "\(dir)/other", via: transfer, in: dir)
            if transfer != .pipe {
                let archive = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/old.\(transfer.fileExtension)"))
                #expect(archive.prefix(4) == Self.magic[transfer], "not a \(transfer) archive")
            }

            let differences = try Self.restoredTree(other).differences(from: try Self.restoredTree(plain))
            #expect(differences.isEmpty, "\(differences.joined(separator: "\n"))")
            let apps = try other.status().apps
            #expect(try apps == plain.status().apps)
            #expect(apps.map(\.bundleId) == [news.bundleId] && apps.first?.widgetPlaced == true)
            #expect(apps.first?.markerPresent == false && apps.first?.flag == .bool(true))
            #expect(try other.refresh(at: Clock.firstRefresh).map(\.reason) == ["restored"])
            #expect(try plain.refresh(at: Clock.firstRefresh).map(\.reason) == ["restored"])
        }
    }

    static let magic: [Phone.Transfer: Data] = [
        .gzip: Data([0x1f, 0x8b, 0x08, 0x00]), .zstd: Data([0x28, 0xb5, 0x2f, 0xfd]),
        .xz: Data([0xfd, 0x37, 0x7a, 0x58]),
    ]

    /// What the archive put on `phone`, compared by content and metadata. Left out, as made by the new phone
    /// itself rather than carried by the archive: its device-local state (identity, events), the app bundles (the
    /// restore reinstalls them into new containers, as iOS does from the App Store; `status` compares the apps),
    /// and the mtimes of the root and of the empty Library/Caches, tmp and SystemData directories recreated in
    /// reinstalled containers (backups skip them).
    static func restoredTree(_ phone: Phone) throws -> TreeSnapshot {
        try TreeSnapshot(phone.root) { $0 == "DeviceLocal" || $0 == "Containers/Bundle/Application" }
            .ignoringMtimes {
                $0 == "." || $0.hasSuffix("/Library/Caches") || $0.hasSuffix("/tmp") || $0.hasSuffix("/SystemData")
            }
    }
}
