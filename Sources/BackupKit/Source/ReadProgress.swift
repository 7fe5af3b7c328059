// ReadProgress: running counts of a backup being read (restore, verify), for a progress display.

/// What a restore or a verify has read so far.
public struct ReadProgress: Sendable {
    public let files: UInt64
    public let bytes: UInt64
    /// Compressed bytes read from the archive so far.
    public let archiveBytes: UInt64
    /// Seconds since the read started (monotonic clock).
    public let seconds: Double

    public init(files: UInt64, bytes: UInt64, archiveBytes: UInt64, seconds: Double) {
        self.files = files
        self.bytes = bytes
        self.archiveBytes = archiveBytes
        self.seconds = seconds
    }
}
