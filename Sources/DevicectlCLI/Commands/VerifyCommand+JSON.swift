// VerifyCommand+JSON: `verify --json` (docs/JSON.md).
import BackupKit

extension VerifyCommand {
    /// `verify --json`: printed whether or not the archive is intact (exit 1 and an error line when not).
    struct Result: Encodable {
        var archive: String
        var ok: Bool
        var hasManifest: Bool
        var metadataChecked: Bool
        var members: UInt64
        var counts: JSONCounts
        var format: String
        var filters: [String]
        @OrNull var sourceUdid: String?
        /// The first problems found (verify stops listing after a few hundred); `problemCount` counts all.
        var problems: [JSONMessage]
        var problemCount: Int

        init(_ report: VerifyReport, archive: String) {
            self.archive = archive
            ok = report.isValid
            hasManifest = report.hasManifest
            metadataChecked = report.metadataChecked
            members = report.members
            counts = JSONCounts(report.counts)
            format = report.format
            filters = report.filters
            sourceUdid = report.header?.source.udid
            problems = report.problems.map { JSONMessage($0) }
            problemCount = report.problemCount
        }
    }
}
