// RestoreCommand+JSON: `restore --json` (docs/JSON.md).
import BackupKit

extension RestoreCommand {
    /// `restore --json`.
    struct Result: Encodable {
        var root: String
        var archive: String
        var counts: JSONCounts
        var archiveBytes: UInt64
        var seconds: Double
        var verified: Bool
        var metadataVerified: Bool
        var apps: [String]
        var initialized: Bool
        @OrNull var sourceUdid: String?

        init(_ report: RestoreReport, archive: String, root: String) {
            self.root = root
            self.archive = archive
            counts = JSONCounts(report)
            archiveBytes = report.archiveBytes
            seconds = report.seconds
            verified = report.verified
            metadataVerified = report.metadataVerified
            apps = report.apps
            initialized = report.initialized
            sourceUdid = report.sourceUDID
        }
    }
}
