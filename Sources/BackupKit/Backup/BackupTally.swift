// BackupTally: the running counts of a backup or dry run (what is stored, what is skipped and why).

/// Counts kept while walking; cheap to update per file (reasons indexed by bit, no dictionary).
struct BackupTally {
    /// What is stored, by kind.
    var counts = EntryCounts()
    /// The logical size of the files stored sparse (the readers' sparse cap: `TarKit.ArchiveReader.Options`).
    var sparseBytes: UInt64 = 0
    /// Files the reading thread hashed.
    var filesHashedByReader: UInt64 = 0
    /// Regular files excluded by their attributes or flags alone (no path rule), which `FileCounter` counts.
    var attributeExcludedFiles: UInt64 = 0
    var excludedEntries: UInt64 = 0
    var excludedBytes: UInt64 = 0
    /// Skipped directories, among `excludedEntries` (their contents are neither walked nor measured).
    var excludedDirectories: UInt64 = 0
    private var directoriesByReason = [UInt64](repeating: 0, count: ExclusionReason.allCases.count)
    private var byReason = [Manifest.Count](repeating: Manifest.Count(), count: ExclusionReason.allCases.count)

    /// The regular files passed so far as `FileCounter` counts them: stored, linked to one stored, or excluded by
    /// attributes alone (the progress's share of the count).
    var countedFiles: UInt64 { counts.files + counts.hardlinks + attributeExcludedFiles }

    /// Records one skipped entry (a directory counts once; its contents are never walked).
    mutating func exclude(reasons: ExclusionReasons, bytes size: UInt64, directory: Bool = false) {
        excludedEntries += 1
        excludedBytes += size
        if directory { excludedDirectories += 1 }
        for (index, _) in ExclusionReason.allCases.enumerated() where reasons.rawValue & (1 << UInt16(index)) != 0 {
            byReason[index].files += 1
            byReason[index].bytes += size
            if directory { directoriesByReason[index] += 1 }
        }
    }

    /// Skipped directories by reason (only reasons that skipped one).
    var excludedDirectoriesByReason: [String: UInt64] {
        var reasons: [String: UInt64] = [:]
        for (index, reason) in ExclusionReason.allCases.enumerated() where directoriesByReason[index] > 0 {
            reasons[reason.rawValue] = directoriesByReason[index]
        }
        return reasons
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
        Manifest.Totals(counts: counts, excluded: excluded)
    }
}
