// JSONCounts+Sources: the JSON record of BackupKit's counts (a backup, a restore, a verification, a listing).
import BackupKit

extension JSONCounts {
    init(_ counts: EntryCounts) {
        self.init(
            files: counts.files, bytes: counts.bytes, directories: counts.directories, symlinks: counts.symlinks,
            hardlinks: counts.hardlinks)
    }
}
