// IndexEntries: one index's entries in key order, each made into its record only when its page is written.

/// The entries of one of Manifest.db's indexes: the rows in key order (`ManifestIndexKeys`' orders), each entry
/// the record (value, rowid). Records are made one at a time into a caller's buffer as pages are filled, never
/// all at once: at 200,000 rows the four indexes' records would be some 35 MB.
struct IndexEntries {
    /// Which column the index holds.
    enum Column {
        case fileID, domain, relativePath, flags
    }

    let order: [Int32]
    let keys: ManifestIndexKeys
    let column: Column

    var count: Int { order.count }

    /// The bytes of entry `index`'s record.
    func length(_ index: Int) -> Int {
        let row = Int(order[index])
        let rowid = Int64(row) + 1
        if column == .flags { return RecordFormat.indexRecordLength(integer: Int64(keys.flags[row]), rowid: rowid) }
        return RecordFormat.indexRecordLength(textLength: keys.length(column, row), rowid: rowid)
    }

    /// Writes entry `index`'s record at `start` (room for `length(index)` bytes).
    func write(_ index: Int, at start: UnsafeMutableRawPointer) {
        let row = Int(order[index])
        let rowid = Int64(row) + 1
        if column == .flags {
            RecordFormat.writeIndexRecord(text: nil, integer: Int64(keys.flags[row]), rowid: rowid, at: start)
            return
        }
        keys.withValue(column, row) { _ = RecordFormat.writeIndexRecord(text: $0, integer: 0, rowid: rowid, at: start) }
    }
}
