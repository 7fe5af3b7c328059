// ManifestRowWriter: a MobileSync backup's Manifest.db rows, encoded and inserted on a worker thread of their own.
import MobileSyncKit
import SystemKit

/// Takes the rows `MobileSyncSink` makes and, on its own thread, encodes each record (`BackupFileRecord.archived`,
/// the NSKeyedArchiver blob), computes the fileID when the sink has none (directories and links) and inserts it
/// (`ManifestDatabaseWriter`), so the sink's thread only creates and writes content files: encoding and inserting
/// rows were a third of that thread's time, and the walk's thread had room. Rows go in batches of 256 through the one
/// bounded hand-off (`HandOff`, four batches), in order. The database is the worker's alone until `finish()`
/// returns; a failure stops the worker and is thrown by the next `add` or `finish`. `cancel()` (and `deinit`) stop
/// and join it.
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

    /// The database, used by the worker thread alone while it runs.
    private final class Database: @unchecked Sendable {
        let writer: ManifestDatabaseWriter
        init(_ writer: ManifestDatabaseWriter) { self.writer = writer }
    }

    private let handOff: HandOff<Batch, MobileSyncError>
    private var worker: WorkerThread?
    private var filling: Batch?
    let database: ManifestDatabaseWriter

    init(database: ManifestDatabaseWriter) throws(SystemError) {
        self.database = database
        let handOff = HandOff<Batch, MobileSyncError>(items: (0..<4).map { _ in Batch() }, wakeAfter: 2)
        self.handOff = handOff
        let shared = Database(database)
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

    /// Writes the last rows and stops the worker; the database is the caller's again.
    func finish() throws(MobileSyncError) {
        try submit()
        handOff.close()
        worker.take()?.join()
        if let failure = handOff.failure { throw failure }
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
