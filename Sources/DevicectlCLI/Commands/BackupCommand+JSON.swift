// BackupCommand+JSON: `backup --json` and `backup --dry-run --json` (docs/JSON.md).
import TarKit
import BackupKit
import TarKit

extension BackupCommand {
    /// `backup --json`.
    struct Result: Encodable {
        var dryRun = false
        var root: String
        var archive: String
        /// `tar` or `mobilesync` (`--format`).
        var format = BackupFormat.tar.rawValue
        var compression: String
        var deviceRoot: Bool
        /// The Apple engine whose exclusion rules applied (`--engine`), as the manifest records it.
        var engine = AppleBackupEngine.default.rawValue
        var counts: JSONCounts
        var excluded: JSONExcluded
        var archiveBytes: UInt64
        var seconds: Double
        var bytesPerSecond: Double
        var archiveBytesPerSecond: Double

        init(_ summary: BackupSummary, root: String, archive: String, compression: Compression) {
            self.root = root
            self.archive = archive
            self.compression = compression.rawValue
            deviceRoot = summary.deviceRoot
            counts = JSONCounts(summary.counts)
            excluded = JSONExcluded(summary)
            archiveBytes = summary.archiveBytes
            seconds = summary.seconds
            bytesPerSecond = summary.seconds > 0 ? Double(summary.counts.bytes) / summary.seconds : 0
            archiveBytesPerSecond = summary.seconds > 0 ? Double(summary.archiveBytes) / summary.seconds : 0
        }
    }

    /// `backup --dry-run --json`: what a backup would store and skip, with every skipped path.
    struct DryRunResult: Encodable {
        /// One skipped path and why.
        struct ExcludedPath: Encodable {
            var path: String
            var directory: Bool
            var reasons: [String]
            /// The `--exclude` glob that matched (the first given, when several do).
            @OrNull var pattern: String?
        }

        var dryRun = true
        var root: String
        @OrNull var archive: String?
        var format: String
        var compression: String
        var deviceRoot: Bool
        /// The Apple engine whose exclusion rules applied (`--engine`).
        var engine: String
        var counts: JSONCounts
        var excluded: JSONExcluded
        var excludedPaths: [ExcludedPath]
    }
}
