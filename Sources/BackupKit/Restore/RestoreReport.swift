// RestoreReport: what a completed restore did.

/// The outcome of a successful restore.
public struct RestoreReport: Sendable, Equatable {
    /// What was restored: regular files (hard links counted apart), their bytes, directories, links.
    public var counts = EntryCounts()
    /// Every file was checked against the manifest's SHA-256 (false for an archive without a manifest).
    public var verified = false
    /// The manifest's members line was present and matched (names, modes, owners, times, links, xattrs).
    public var metadataVerified = false
    /// Bundle ids of the apps reinstalled from the manifest.
    public var apps: [String] = []
    /// ROOT did not exist (or was empty) and was initialised as a new device first.
    public var initialized = false
    /// The engine the archive was made with (`icloud` when its manifest names none); nil without a manifest.
    public var engine: AppleBackupEngine?
    /// The UDID of the device the archive came from (from the manifest), if any.
    public var sourceUDID: String?
    /// Compressed bytes read from the archive.
    public var archiveBytes: UInt64 = 0
    public var seconds: Double = 0
    public var warnings: [String] = []
    /// The backup's format: `tar`, or `mobilesync`.
    public var format = "tar"
    /// A MobileSync backup's rows in domains outside `/var/mobile` (not restored), by domain family.
    public var notPlaced: [RestoreNotPlacedDomain] = []
    /// Paths of the target device flagged excluded from backup, not restored over (in path order).
    public var skipped: [RestoreSkippedPath] = []
}
