// ManifestRowWriter: a MobileSync backup's Manifest.db rows, encoded and inserted on a worker thread of their own.
import MobileSyncKit
import SystemKit

/// Takes the rows `MobileSyncSink` makes and, on its own thread, encodes each record (`BackupFileRecord.archived`,
/// the NSKeyedArchiver blob), computes the fileID when the sink has none (directories and links) and inserts it
/// (`ManifestDatabaseWriter`), so the sink's thread only creates and writes content files: encoding and inserting
/// rows were a third of that thread's time, and the walk's thread had room. Rows go in batches of 256 through the one
/// bounded hand-off (`HandOff`, four batches), in order. The database is the worker's alone: after the last row the
/// worker runs the caller's `finish(then:)` work on it (closing Manifest.db: its indexes, its first page and, for
/// an encrypted backup, the CBC pass over the whole file) while the caller goes on, and `wait()` returns the outcome.
/// A failure stops the worker and is thrown by the next `add`, `finish(then:)` or `wait()`. `cancel()` (and
/// `deinit`) stop and join it (a finishing step under way ends first).
final class ManifestRowWriter {
    /// One row to write.
    struct Row {
        let record: BackupFileRecord
        let domain: String
        /// The row's fileID when the sink knows it (a file's names its content file); else computed by the worker.
        let fileID: String?
    }

    static let batchSize = 256

    /// A reusable batch of rows (owned by one side at a time: the hand-off passes it).
    private final class Batch {
        var rows: [Row] = []
    }

    /// The database, used by the worker thread alone; the work to run on it after the last row (set before the
    /// hand-off is closed, read by the worker after it drained it) and that work's failure (read after the join).
    private final class Database: @unchecked Sendable {
        let writer: ManifestDatabaseWriter
        var finishing: ((ManifestDatabaseWriter) throws(BackupError) -> UInt64)?
        var written: UInt64 = 0
        var failure: BackupError?
        init(_ writer: ManifestDatabaseWriter) { self.writer = writer }
    }

    private let handOff: HandOff<Batch, MobileSyncError>
    private var worker: WorkerThread?
    private var filling: Batch?
    private let shared: Database

    init(database: ManifestDatabaseWriter) throws(SystemError) {
        let handOff = HandOff<Batch, MobileSyncError>(items: (0..<4).map { _ in Batch() }, wakeAfter: 2)
        self.handOff = handOff
        let shared = Database(database)
        self.shared = shared
        worker = try WorkerThread { Self.run(shared, handOff) }
    }

    deinit {
        cancel()
    }

    /// The worker: inserts each batch's rows until the hand-off is closed and drained, or stops.
    private static func run(_ database: Database, _ handOff: HandOff<Batch, MobileSyncError>) {
        var encoder = KeyedRecordEncoder()  // one buffer for every row's record
        while let batch = handOff.next() {
            do {
                for row in batch.rows {
                    let record = row.record
                    let fileID = row.fileID ?? FileID.of(domain: row.domain, relativePath: record.relativePath)
                    try encoder.withArchive(of: record) { blob throws(MobileSyncError) in
                        try database.writer.insert(
                            fileID: fileID, domain: row.domain, relativePath: record.relativePath, kind: record.kind,
                            blob: blob)
                    }
                }
            } catch {
                handOff.fail(error)
                return
            }
            batch.rows.removeAll(keepingCapacity: true)
            handOff.recycle(batch)
        }
        // Drained after `finish(then:)` (not stopped): the database's last steps, on this thread.
        guard !handOff.isStopped, let finishing = database.finishing else { return }
        do { database.written = try finishing(database.writer) } catch { database.failure = error }
    }

    /// Queues `row`; hands a full batch to the worker.
    func add(_ row: Row) throws(MobileSyncError) {
        if filling == nil {
            guard let spare = handOff.takeSpare() else { throw stoppedFailure }
            filling = spare
        }
        filling!.rows.append(row)
        if filling!.rows.count >= Self.batchSize { try submit() }
    }

    /// Hands over the last rows; once they are in, the worker runs `finishing` on the database (and then ends). Returns
    /// at once: `wait()` for the outcome.
    func finish(then finishing: @escaping (ManifestDatabaseWriter) throws(BackupError) -> UInt64) throws(MobileSyncError) {
        try submit()
        shared.finishing = finishing
        handOff.close()
    }

    /// Waits until the worker has ended (after `finish(then:)`); returns what the finishing work returned (bytes it
    /// wrote), or throws the worker's failure: a row's, or the finishing work's.
    func wait() throws(BackupError) -> UInt64 {
        worker.take()?.join()
        if let failure = handOff.failure { throw .format(failure) }
        if let failure = shared.failure { throw failure }
        return shared.written
    }

    /// Stops the worker without writing what is queued, and waits for it.
    func cancel() {
        handOff.cancel()
        worker.take()?.join()
    }

    private func submit() throws(MobileSyncError) {
        guard let batch = filling else { return }
        filling = nil
        guard handOff.submit(batch) else { throw stoppedFailure }
    }

    /// The worker's failure, or (stopped by `cancel`) a closed database.
    private var stoppedFailure: MobileSyncError {
        handOff.failure
            ?? .database(path: "Manifest.db", operation: "insert", code: 21, message: "the row writer was stopped")
    }
}
