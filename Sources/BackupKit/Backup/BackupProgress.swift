// BackupProgress: what the engine reports while it runs (for a progress bar), at most ~10 times a second.
import Glibc
import SystemKit

/// A snapshot of a running backup.
public struct BackupProgress: Sendable {
    /// Regular files stored so far.
    public var files: UInt64
    /// Bytes of file data read so far.
    public var bytes: UInt64
    /// Regular files passed so far as `BackupScanner` counts them (`BackupTally.countedFiles`): stored, hard links
    /// and files excluded by their attributes alone.
    public var counted: UInt64
    /// Seconds since the backup started.
    public var seconds: Double
    /// Set on the final report.
    public var finished: Bool
    /// What the backup stores in all, once `BackupScanner` has counted it; nil while it counts, or when nothing
    /// counts (`BackupRequest.countsAhead` off).
    public var total: BackupTotal?
    /// Whether a count of the total is running (the display says "counting" until `total` comes).
    public var counting: Bool

    /// The share of the counted files passed (0...1), once the total is known; 1 on the final report (files in a
    /// directory only its attributes exclude are counted but never passed: the share then ends short of it).
    public var fraction: Double? {
        guard let total else { return nil }
        if finished || total.files == 0 { return 1 }
        return min(1, Double(counted) / Double(total.files))
    }
}

/// Calls the progress closure when at least `interval` has passed (CLOCK_MONOTONIC: a vDSO read, no syscall),
/// with the scanner's total once it has one.
struct ProgressThrottle {
    private let report: ((BackupProgress) -> Void)?
    private let scanner: BackupScanner?
    private let start: Double
    private var last: Double
    private let interval = 0.1

    init(_ report: ((BackupProgress) -> Void)?, scanner: BackupScanner? = nil) {
        self.report = report
        self.scanner = scanner
        start = MonotonicClock.seconds()
        last = start
    }

    /// Seconds since the start.
    var elapsed: Double { MonotonicClock.seconds() - start }

    mutating func tick(files: UInt64, bytes: UInt64, counted: UInt64) {
        guard let report else { return }
        let now = MonotonicClock.seconds()
        guard now - last >= interval else { return }
        last = now
        report(snapshot(files: files, bytes: bytes, counted: counted, seconds: now - start, finished: false))
    }

    func finish(files: UInt64, bytes: UInt64, counted: UInt64) {
        report?(snapshot(files: files, bytes: bytes, counted: counted, seconds: elapsed, finished: true))
    }

    private func snapshot(
        files: UInt64, bytes: UInt64, counted: UInt64, seconds: Double, finished: Bool
    ) -> BackupProgress {
        let total = scanner?.total
        return BackupProgress(
            files: files, bytes: bytes, counted: counted, seconds: seconds, finished: finished, total: total,
            counting: scanner != nil && total == nil)
    }
}
