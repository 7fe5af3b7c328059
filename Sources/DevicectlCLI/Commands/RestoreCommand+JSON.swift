// RestoreCommand+JSON: `restore --json` (docs/JSON.md).
import BackupKit

extension RestoreCommand {
    /// `restore --json`.
    struct Result: Encodable {
        /// A path of the device not restored over: it carries the exclusion flag there.
        struct Skipped: Encodable {
            var path: String
            var reason: String
            /// Archive members at or below it that were checked but not restored.
            var entries: UInt64
        }

        /// A MobileSync domain outside /var/mobile, not restored.
        struct NotPlaced: Encodable {
            var domain: String
            var entries: UInt64
        }

        var root: String
        var archive: String
        /// `tar` or `mobilesync`.
        var format: String
        var counts: JSONCounts
        var archiveBytes: UInt64
        var seconds: Double
        var verified: Bool
        var metadataVerified: Bool
        var apps: [String]
        var initialized: Bool
        @OrNull var sourceUdid: String?
        /// The engine the archive was made with (`icloud` when its manifest names none; null without a manifest).
        @OrNull var engine: String?
        var skipped: [Skipped]
        var notPlaced: [NotPlaced]

        init(_ report: RestoreReport, archive: String, root: String) {
            self.root = root
            self.archive = archive
            format = report.format
            counts = JSONCounts(report.counts)
            archiveBytes = report.archiveBytes
            seconds = report.seconds
            verified = report.verified
            metadataVerified = report.metadataVerified
            apps = report.apps
            initialized = report.initialized
            sourceUdid = report.sourceUDID
            engine = report.engine?.rawValue
            skipped = report.skipped.map { Skipped(path: $0.path, reason: $0.reason.rawValue, entries: $0.entries) }
            notPlaced = report.notPlaced.map { NotPlaced(domain: $0.domain, entries: $0.entries) }
        }
    }
}
