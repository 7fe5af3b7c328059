// BackupFormat: what a backup writes: a tar archive or a MobileSync backup directory.

/// The format of a backup. `tar`: one pax tar archive (optionally compressed), to a file or a stream.
/// `mobileSync`: a Finder/iTunes/idevicebackup2 backup directory (Manifest.db, content files by SHA-1, the
/// three plists), made of a device root's domains.
public enum BackupFormat: String, Sendable, CaseIterable {
    case tar
    case mobileSync = "mobilesync"

    /// The Apple engine whose rules apply when none is given: a MobileSync backup is what a computer makes.
    public var defaultEngine: AppleBackupEngine {
        switch self {
        case .tar: .default
        case .mobileSync: .computer
        }
    }
}
