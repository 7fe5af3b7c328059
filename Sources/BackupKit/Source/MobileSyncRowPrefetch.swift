// MobileSyncRowPrefetch: a MobileSync restore's Manifest.db rows read and checked on a worker thread, ahead of it.
import MobileSyncKit
import PropertyListKit
import SystemKit

/// Steps Manifest.db's rows (`RowCursor`) and checks each (`MobileSyncRowRules`: the path, the fileID's SHA-1, the
/// keyed-archive record), unwrapping an encrypted backup's file keys, on its own thread, in batches handed to the restore's reading thread through the one
/// bounded hand-off (`HandOff`, four batches of 256 rows): decoding a row's record costs about as much as staging
/// its file, so the two run side by side. Rows keep their order; a check's failure travels with its row (the
/// restore names it), a database error stops the worker and is thrown by `next()`. Only the worker uses the cursor
/// (and so the SQLite connection) until it has stopped: `stop()` cancels and joins it, and `deinit` does too.
final class MobileSyncRowPrefetch {
    /// A row, what its check found, and (an encrypted backup's file) its key, unwrapped on the worker: nil when it
    /// does not unwrap (the reader then says why).
    struct CheckedRow {
        let row: ManifestDatabaseReader.Row
        let record: Result<BackupFileRecord, PropertyListReadError>
        var fileKey: [UInt8]?
    }

    /// Rows handed over at once.
    static let batchSize = 256

    /// A reusable batch of checked rows (owned by one side at a time: the hand-off passes it).
    private final class Batch {
        var rows: [CheckedRow] = []
    }

    /// The cursor, and the class keys' unwrapper, used by the worker thread alone.
    private final class Rows: @unchecked Sendable {
        let cursor: ManifestDatabaseReader.RowCursor
        let keys: ClassKeyUnwrapper?

        init(_ cursor: ManifestDatabaseReader.RowCursor, keys: [UInt32: [UInt8]]?) {
            self.cursor = cursor
            self.keys = keys.map(ClassKeyUnwrapper.init)
        }

        /// The file key of an encrypted backup's file record: its `EncryptionKey` unwrapped with its class's key,
        /// the class being its `ProtectionClass`; nil otherwise.
        func fileKey(_ record: BackupFileRecord) -> [UInt8]? {
            guard let keys, record.kind == .file, let wrapped = record.encryptionKey.flatMap(WrappedKey.init),
                Int(wrapped.protectionClass) == record.protectionClass
            else { return nil }
            return keys.unwrap(wrapped)
        }
    }

    private let handOff: HandOff<Batch, MobileSyncError>
    private var worker: WorkerThread?
    private var current: Batch?
    private var index = 0

    /// Reads `cursor`'s rows; with `keys` (an encrypted backup's class keys), unwraps each file's key too.
    init(cursor: ManifestDatabaseReader.RowCursor, keys: [UInt32: [UInt8]]? = nil) throws(SystemError) {
        let handOff = HandOff<Batch, MobileSyncError>(items: (0..<4).map { _ in Batch() })
        self.handOff = handOff
        let rows = Rows(cursor, keys: keys)
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
                    let key = (try? record.get()).flatMap { rows.fileKey($0) }
                    batch.rows.append(CheckedRow(row: row, record: record, fileKey: key))
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
            // Key bytes do not outlive their batch (best effort: Swift may have copied them).
            for index in current.rows.indices where current.rows[index].fileKey != nil {
                BackupEncryption.clear(&current.rows[index].fileKey!)
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
