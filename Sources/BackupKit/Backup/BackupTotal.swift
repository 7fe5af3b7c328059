// BackupTotal: what a backup will store in all (`BackupScanner`'s count).

/// The regular files a backup will store, as `FileCounter` counts them from directory listings (it cannot see
/// exclusions that only extended attributes or flags make, nor hard links, so it may run a little above).
public struct BackupTotal: Sendable, Equatable {
    public var files: UInt64

    public init(files: UInt64) {
        self.files = files
    }
}
