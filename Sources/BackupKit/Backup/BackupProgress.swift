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
}

/// Calls the progress closure when at least `interval` has passed (CLOCK_MONOTONIC: a vDSO read, no syscall).
struct ProgressThrottle {
    private let report: ((BackupProgress) -> Void)?
    private let start: Double
    private var last: Double
    private let interval = 0.1

    init(_ report: ((BackupProgress) -> Void)?) {
        self.report = report
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
        report(BackupProgress(files: files, bytes: bytes, seconds: now - start, finished: false))
    }

    func finish(files: UInt64, bytes: UInt64) {
        report?(BackupProgress(files: files, bytes: bytes, seconds: elapsed, finished: true))
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
