// IndexRecords: one index's entries as records, in key order, in one buffer.

/// An index's records (value, rowid) in key order: record `i` is `bytes[bounds[i]..<bounds[i + 1]]`. Built from
/// `ManifestIndexKeys`; the two largest are built on a second thread while the first indexes are written
/// (`ManifestDatabaseWriter.finish`).
struct IndexRecords {
    private(set) var bytes: [UInt8] = []
    private(set) var bounds = [0]

    /// The records of the rows in `order`, each with the text `value(row)`.
    init(order: [Int32], text value: (Int) -> ArraySlice<UInt8>) {
        bounds.reserveCapacity(order.count + 1)
        for row in order {
            value(Int(row)).withUnsafeBytes { text in
                RecordFormat.appendIndexRecord(text: text, integer: 0, rowid: Int64(row) + 1, to: &bytes)
            }
            bounds.append(bytes.count)
        }
    }

    /// The records of the rows in `order`, each with the integer `value(row)`.
    init(order: [Int32], integer value: (Int) -> Int64) {
        bounds.reserveCapacity(order.count + 1)
        for row in order {
            RecordFormat.appendIndexRecord(text: nil, integer: value(Int(row)), rowid: Int64(row) + 1, to: &bytes)
            bounds.append(bytes.count)
        }
    }
}
