// BackupRequest: everything `devicectl backup` asks of the engine.
import Foundation
import TarKit

/// One backup: the tree, the archive, the filter and the exclusions.
public struct BackupRequest: Sendable {
    /// The tree to archive: a device root or any directory.
    public var root: String
    public var output: BackupOutput
    public var compression: Compression
    /// Compression level; must lie in `compression.levels`.
    public var level: Int?
    /// `--exclude` globs.
    public var patterns: [ExclusionPattern]
    /// The manifest's `created` time (and the manifest member's mtime): pin it for reproducible archives.
    public var created: Date
    /// `devicectl X.Y.Z`, recorded in the manifest.
    public var tool: String
    /// The Apple engine whose exclusion rules apply, recorded in the manifest.
    public var engine: AppleBackupEngine
    /// `--one-file-system`: do not descend into directories on other file systems (mount points are stored empty).
    public var oneFileSystem: Bool
    /// What is written: a tar archive, or a MobileSync backup directory (`output` is then its path).
    public var format: BackupFormat
    /// An encrypted MobileSync backup's password; nil for a plain backup.
    public var password: BackupPassword?
    /// Whether and how the tree is counted (`BackupScanner`) so progress reports carry a total: worth it only
    /// when progress is shown.
    public var counting = BackupCounting.off
    /// `DEVICECTL_THREADS=pinned`: every file is hashed on the formatting thread, never by backlog (see
    /// `HashPlacement.forTar`), so a run's system calls and hashing fall on the same threads every time.
    public var pinsThreads = false

    public init(
        root: String, output: BackupOutput, compression: Compression = .none, level: Int? = nil,
        patterns: [ExclusionPattern] = [], created: Date = Date(), tool: String, engine: AppleBackupEngine = .default,
        oneFileSystem: Bool = false, format: BackupFormat = .tar
    ) {
        self.format = format
        self.engine = engine
        self.oneFileSystem = oneFileSystem
        self.root = root
        self.output = output
        self.compression = compression
        self.level = level
        self.patterns = patterns
        self.created = created
        self.tool = tool
    }
}
