// BackupTally: the running counts of a backup or dry run (what is stored, what is skipped and why).

/// Counts kept while walking; cheap to update per file (reasons indexed by bit, no dictionary).
struct BackupTally {
    var files: UInt64 = 0
    var bytes: UInt64 = 0
    var directories: UInt64 = 0
    var symlinks: UInt64 = 0
    var hardlinks: UInt64 = 0
    var excludedEntries: UInt64 = 0
    var excludedBytes: UInt64 = 0
    private var byReason = [Manifest.Count](repeating: Manifest.Count(), count: ExclusionReason.allCases.count)

    /// Records one skipped entry (a directory counts once; its contents are never walked).
    mutating func exclude(reasons: ExclusionReasons, bytes size: UInt64) {
        excludedEntries += 1
        excludedBytes += size
        for (index, _) in ExclusionReason.allCases.enumerated() where reasons.rawValue & (1 << UInt16(index)) != 0 {
            byReason[index].files += 1
            byReason[index].bytes += size
        }
    }

    /// The skipped totals as the manifest and `--json` report them (only reasons that occurred).
    var excluded: Manifest.Excluded {
        var reasons: [String: Manifest.Count] = [:]
        for (index, reason) in ExclusionReason.allCases.enumerated() where byReason[index].files > 0 {
            reasons[reason.rawValue] = byReason[index]
        }
        return Manifest.Excluded(files: excludedEntries, bytes: excludedBytes, byReason: reasons)
    }

    /// The manifest's totals line.
    var totals: Manifest.Totals {
        Manifest.Totals(
            files: files, bytes: bytes, directories: directories, symlinks: symlinks, hardlinks: hardlinks,
            excluded: excluded)
    }
}
