// ListCommand+JSON: `list --json` (docs/JSON.md).
import BackupKit
import DeviceKit
import TarKit
import Foundation

extension ListCommand {
    /// `list --json`: printed whenever the archive could be read to its end (exit 1 and an error line when its
    /// manifest is malformed).
    struct Result: Encodable {
        var archive: String
        var format: String
        var filters: [String]
        var members: [Member]
        /// The manifest's header and totals; nil (null) for an archive without a readable manifest.
        @OrNull var manifest: ManifestSummary?
        /// Why the manifest could not be read; nil (null) when it could, or when there is none.
        @OrNull var manifestProblem: String?
    }

    /// One member, as `list` prints it.
    struct Member: Encodable {
        var type: String
        var mode: String
        var uid: Int64
        var gid: Int64
        var size: Int64
        var mtime: String
        var path: String
        @OrNull var link: String?

        init(_ member: ArchiveReader.Member) {
            type = member.kind.name
            mode = String(member.permissions, radix: 8)
            uid = member.uid
            gid = member.gid
            size = member.size
            mtime = Timestamp.format(seconds: member.mtimeSeconds, nanoseconds: member.mtimeNanoseconds)
            path = ArchiveFormat.jsonName(bytes: member.pathBytes)
            link = member.linkBytes.map(ArchiveFormat.jsonName(bytes:))
        }
    }

    /// The manifest: who made the archive, from which device, the apps a restore reinstalls, the totals.
    struct ManifestSummary: Encodable {
        struct App: Encodable {
            var bundleId: String
            var name: String
            var groups: [String]
            var widget: Bool
        }

        var tool: String
        var created: String
        var formatVersion: Int
        @OrNull var sourceUdid: String?
        /// The Apple engine whose exclusion rules the backup applied; `icloud` for an archive that records none.
        var engine: String
        /// Whether the manifest names its engine (archives made before engines do not).
        var engineRecorded: Bool
        var apps: [App]
        var widgets: [String]
        @OrNull var counts: JSONCounts?
        @OrNull var excluded: JSONExcluded?

        init(_ header: Manifest.Header, totals: Manifest.Totals?) {
            tool = header.tool
            created = header.created
            formatVersion = header.formatVersion
            sourceUdid = header.source.udid
            engine = header.appliedEngine.rawValue
            engineRecorded = header.engine != nil
            apps = header.apps.map {
                App(bundleId: $0.bundleId, name: $0.name, groups: $0.groups, widget: $0.widget != nil)
            }
            widgets = header.widgets.map(\.app)
            counts = totals.map { JSONCounts($0.counts) }
            excluded = totals.map { JSONExcluded($0.excluded) }
        }
    }
}
