// MobileSyncRowPrefetch: a MobileSync restore's Manifest.db rows read and checked on a worker thread, ahead of it.
import MobileSyncKit
import SystemKit

/// Steps Manifest.db's rows (`RowCursor`) and checks each (`MobileSyncRowRules`: the path, the fileID's SHA-1, the
/// keyed-archive record) on its own thread, in batches handed to the restore's reading thread through the one
/// bounded hand-off (`HandOff`, four batches of 256 rows): decoding a row's record costs about as much as staging
/// its file, so the two run side by side. Rows keep their order; a check's failure travels with its row (the
/// restore names it), a database error stops the worker and is thrown by `next()`. Only the worker uses the cursor
/// (and so the SQLite connection) until it has stopped: `stop()` cancels and joins it, and `deinit` does too.
final class MobileSyncRowPrefetch {
    /// A row and what its check found.
    struct CheckedRow {
        let row: ManifestDatabaseReader.Row
        let record: Result<BackupFileRecord, PropertyListReadError>
    }

    /// Rows handed over at once.
    static let batchSize = 256

    /// A reusable batch of checked rows (owned by one side at a time: the hand-off passes it).
    private final class Batch {
        var rows: [CheckedRow] = []
    }

    /// The cursor, used by the worker thread alone.
    private final class Rows: @unchecked Sendable {
        let cursor: ManifestDatabaseReader.RowCursor
        init(_ cursor: ManifestDatabaseReader.RowCursor) { self.cursor = cursor }
    }

    private let handOff: HandOff<Batch, MobileSyncError>
    private var worker: WorkerThread?
    private var current: Batch?
    private var index = 0

    init(cursor: ManifestDatabaseReader.RowCursor) throws(SystemError) {
        let handOff = HandOff<Batch, MobileSyncError>(items: (0..<4).map { _ in Batch() })
        self.handOff = handOff
        let rows = Rows(cursor)
        worker = try WorkerThread { Self.run(rows, handOff) }
    }

    deinit {
        stop()
    }

    /// The worker: fills batches until the rows end, the hand-off stops, or the database fails.
    private static func run(_ rows: Rows, _ handOff: HandOff<Batch, MobileSyncError>) {
        while let batch = handOff.takeSpare() {
            batch.rows.removeAll(keepingCapacity: true)
            do {
                while batch.rows.count < batchSize, let row = try rows.cursor.next() {
                    let record = Result { () throws(PropertyListReadError) in try MobileSyncRowRules.check(row) }
                    batch.rows.append(CheckedRow(row: row, record: record))
                }
            } catch {
                handOff.fail(error)
                return
            }
            let last = batch.rows.count < batchSize
            if !batch.rows.isEmpty {
                guard handOff.submit(batch) else { return }
            }
            if last {
                handOff.close()
                return
            }
        }
    }

    /// The next checked row, in (domain, path) order; nil after the last. Throws the database's failure.
    func next() throws(MobileSyncError) -> CheckedRow? {
        if let current {
            if index < current.rows.count {
                index += 1
                return current.rows[index - 1]
            }
            handOff.recycle(current)
            self.current = nil
        }
        guard let batch = handOff.next() else {
            if let failure = handOff.failure { throw failure }
            return nil
        }
        current = batch
        index = 1
        return batch.rows[0]
    }

    /// Stops the worker (if it still runs) and waits for it: the cursor is free after this.
    func stop() {
        handOff.cancel()
        worker.take()?.join()
    }
}
