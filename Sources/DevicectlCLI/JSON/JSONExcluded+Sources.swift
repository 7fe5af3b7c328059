// JSONExcluded+Sources: what a backup (or its dry run) skipped, and what a manifest says was skipped.
import BackupKit

extension JSONExcluded {
    /// A backup's or a dry run's exclusions: entries, directories among them, bytes, per reason.
    init(_ summary: BackupSummary) {
        let excluded = summary.excluded
        self.init(
            entries: excluded.files, directories: summary.excludedDirectories, bytes: excluded.bytes,
            byReason: excluded.byReason.reduce(into: [:]) { shares, pair in
                shares[pair.key] = Share(
                    entries: pair.value.files, directories: summary.excludedDirectoriesByReason[pair.key] ?? 0,
                    bytes: pair.value.bytes)
            })
    }

    /// A manifest's exclusions: it counts entries and bytes only (directories are null).
    init(_ excluded: Manifest.Excluded) {
        self.init(
            entries: excluded.files, directories: nil, bytes: excluded.bytes,
            byReason: excluded.byReason.mapValues { Share(entries: $0.files, directories: nil, bytes: $0.bytes) })
    }
}
