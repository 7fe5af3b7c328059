// BackupProgress: what the engine reports while it runs (for a progress bar), at most ~10 times a second.
import Glibc

/// A snapshot of a running backup.
public struct BackupProgress: Sendable {
    /// Regular files stored so far.
    public var files: UInt64
    /// Bytes of file data read so far.
    public var bytes: UInt64
    /// Seconds since the backup started.
    public var seconds: Double
    /// Set on the final report.
    public var finished: Bool
    /// What the backup stores in all, once `BackupScanner` has counted it; nil while it counts, or when nothing
    /// counts (`BackupRequest.countsAhead` off).
    public var total: BackupTotal?
    /// Whether a count of the total is running (the display says "counting" until `total` comes).
    public var counting: Bool

    /// Bytes a file weighs in `fraction`, beside its data: about what opening, checking and archiving one file
    /// costs at the rate data is read (15 µs a file against ~1 GB/s), so a tree of small files does not sit near
    /// 0% while its count runs and a few large files do not dominate.
    static let fileWeight = 16_384.0

    /// The share done (0...1) by weighted files and bytes, once the total is known.
    public var fraction: Double? {
        guard let total else { return nil }
        let all = Double(total.bytes) + Double(total.files) * Self.fileWeight
        guard all > 0 else { return finished ? 1 : 0 }
        return min(1, (Double(bytes) + Double(files) * Self.fileWeight) / all)
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
        start = Self.now()
        last = start
    }

    /// Seconds since the start.
    var elapsed: Double { Self.now() - start }

    mutating func tick(files: UInt64, bytes: UInt64) {
        guard let report else { return }
        let now = Self.now()
        guard now - last >= interval else { return }
        last = now
        report(snapshot(files: files, bytes: bytes, seconds: now - start, finished: false))
    }

    func finish(files: UInt64, bytes: UInt64) {
        report?(snapshot(files: files, bytes: bytes, seconds: elapsed, finished: true))
    }

    private func snapshot(files: UInt64, bytes: UInt64, seconds: Double, finished: Bool) -> BackupProgress {
        let total = scanner?.total
        return BackupProgress(
            files: files, bytes: bytes, seconds: seconds, finished: finished, total: total,
            counting: scanner != nil && total == nil)
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
