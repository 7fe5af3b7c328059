// BackupTotal: what a backup will read in all (`BackupScanner`'s count).

/// Regular files a backup will store (hard links to one already stored not counted) and their bytes.
public struct BackupTotal: Sendable, Equatable {
    public var files: UInt64
    public var bytes: UInt64

    public init(files: UInt64, bytes: UInt64) {
        self.files = files
        self.bytes = bytes
    }
}
