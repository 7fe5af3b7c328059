// JSONCounts+Sources: the counts of a backup, a restore, a verification and a manifest.
import BackupKit

extension JSONCounts {
    init(_ summary: BackupSummary) {
        self.init(
            files: summary.files, bytes: summary.bytes, directories: summary.directories, symlinks: summary.symlinks,
            hardlinks: summary.hardlinks)
    }

    init(_ report: RestoreReport) {
        self.init(
            files: report.files, bytes: report.bytes, directories: report.directories, symlinks: report.symlinks,
            hardlinks: report.hardlinks)
    }

    init(_ report: VerifyReport) {
        self.init(
            files: report.files, bytes: report.bytes, directories: report.directories, symlinks: report.symlinks,
            hardlinks: report.hardlinks)
    }

    init(_ totals: Manifest.Totals) {
        self.init(
            files: totals.files, bytes: totals.bytes, directories: totals.directories, symlinks: totals.symlinks,
            hardlinks: totals.hardlinks)
    }
}
