// ReadProgress: running counts of a backup being read (restore, verify, list), for a progress display.
import SystemKit

/// What a restore, a verify or a listing has read so far.
public struct ReadProgress: Sendable {
    public let files: UInt64
    public let bytes: UInt64
    /// Compressed bytes read from the archive so far (a MobileSync backup: bytes of its content files).
    public let archiveBytes: UInt64
    /// Seconds since the read started (monotonic clock).
    public let seconds: Double
    /// How far the read is, in the source's own unit (`FormatSource.progressPosition`): an archive file's bytes, a
    /// MobileSync backup's Manifest.db rows.
    public let done: UInt64
    /// `done`'s end, when known: nil for standard input or a pipe.
    public let total: UInt64?

    public init(files: UInt64, bytes: UInt64, archiveBytes: UInt64, seconds: Double, done: UInt64, total: UInt64?) {
        self.files = files
        self.bytes = bytes
        self.archiveBytes = archiveBytes
        self.seconds = seconds
        self.done = done
        self.total = total
    }

    /// The counts of a read of `source` started at `started` (`MonotonicClock.seconds()`), now.
    init(files: UInt64, bytes: UInt64, of source: any FormatSource, since started: Double) {
        let position = source.progressPosition
        self.init(
            files: files, bytes: bytes, archiveBytes: source.inputBytes,
            seconds: MonotonicClock.seconds() - started, done: position.done, total: position.total)
    }

    /// The share read (0...1), when the total is known.
    public var fraction: Double? {
        guard let total else { return nil }
        return total == 0 ? 1 : min(1, Double(done) / Double(total))
    }
}
