// RowProgress: progress over a MobileSync backup's rows, for verify and list (a restore's comes from its source).
import SystemKit

/// Reports a `ReadProgress` per row taken, its position the rows so far of Manifest.db's count.
struct RowProgress {
    private let report: ((ReadProgress) -> Void)?
    private let total: UInt64?
    private let started = MonotonicClock.seconds()
    private var rows: UInt64 = 0

    /// Counts `source`'s rows when there is someone to `report` to.
    init(_ source: MobileSyncSource, _ report: ((ReadProgress) -> Void)?) throws {
        self.report = report
        total = report == nil ? nil : try source.rowCount()
    }

    /// One more row taken; `files` and `bytes` so far.
    mutating func row(files: UInt64, bytes: UInt64) {
        guard let report else { return }
        rows += 1
        report(
            ReadProgress(
                files: files, bytes: bytes, archiveBytes: bytes, seconds: MonotonicClock.seconds() - started,
                done: rows, total: total))
    }
}
