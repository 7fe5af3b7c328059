// ManifestIndexKeys: each Files row's indexed values, kept compactly and put in each index's order at the end.
import Glibc

/// What the four indexes of Manifest.db's `Files` table need of each row (its fileID, domain, relativePath and
/// flags; the rowid is the row's number, from 1), kept as bytes in shared buffers rather than a string a value,
/// and, at the end, each index's order: rows sorted by the value as SQLite compares it (text byte by byte, then
/// by length; BINARY collation), ties by rowid.
struct ManifestIndexKeys {
    private(set) var count = 0
    private var fileIDs: [UInt8] = []
    private var fileIDEnds: [Int] = [0]
    private var paths: [UInt8] = []
    private var pathEnds: [Int] = [0]
    /// Each row's domain, a number into `domains` (a backup has few domains, most rows in runs of one).
    private var domainOfRow: [UInt32] = []
    private(set) var domains: [[UInt8]] = []
    private var domainNumbers: [String: UInt32] = [:]
    private var lastDomain: (name: String, number: UInt32)?
    private(set) var flags: [UInt8] = []

    mutating func add(fileID: UnsafeRawBufferPointer, domain: String, relativePath: UnsafeRawBufferPointer, flags: UInt8) {
        fileIDs.append(contentsOf: fileID)
        fileIDEnds.append(fileIDs.count)
        paths.append(contentsOf: relativePath)
        pathEnds.append(paths.count)
        domainOfRow.append(number(of: domain))
        self.flags.append(flags)
        count += 1
    }

    private mutating func number(of domain: String) -> UInt32 {
        if let lastDomain, lastDomain.name == domain { return lastDomain.number }
        let number: UInt32
        if let known = domainNumbers[domain] {
            number = known
        } else {
            number = UInt32(domains.count)
            domains.append(Array(domain.utf8))
            domainNumbers[domain] = number
        }
        lastDomain = (domain, number)
        return number
    }

    /// The length of row `row`'s value in `column` (text; flags have none).
    func length(_ column: IndexEntries.Column, _ row: Int) -> Int {
        switch column {
        case .fileID: fileIDEnds[row + 1] - fileIDEnds[row]
        case .relativePath: pathEnds[row + 1] - pathEnds[row]
        case .domain: domains[Int(domainOfRow[row])].count
        case .flags: 0
        }
    }

    /// Calls `body` with row `row`'s value in `column` (text; flags have none), in place.
    func withValue<Result>(
        _ column: IndexEntries.Column, _ row: Int, _ body: (UnsafeRawBufferPointer) -> Result
    ) -> Result {
        func slice(_ bytes: [UInt8], _ ends: [Int]) -> Result {
            bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[ends[row]..<ends[row + 1]])) }
        }
        switch column {
        case .fileID: return slice(fileIDs, fileIDEnds)
        case .relativePath: return slice(paths, pathEnds)
        case .domain: return domains[Int(domainOfRow[row])].withUnsafeBytes(body)
        case .flags: return body(UnsafeRawBufferPointer(start: nil, count: 0))
        }
    }

    /// Whether rows `left` and `right` have the same fileID.
    func sameFileID(_ left: Int, _ right: Int) -> Bool {
        let leftStart = fileIDEnds[left], leftLength = fileIDEnds[left + 1] - leftStart
        let rightStart = fileIDEnds[right], rightLength = fileIDEnds[right + 1] - rightStart
        guard leftLength == rightLength else { return false }
        guard leftLength > 0 else { return true }
        return fileIDs.withUnsafeBytes { bytes in
            memcmp(bytes.baseAddress! + leftStart, bytes.baseAddress! + rightStart, leftLength) == 0
        }
    }

    /// Rows in fileID order (fileIDs are hashes: their first eight bytes are as good as unique, and a radix sort
    /// on them is the sort).
    func fileIDOrder() -> [Int32] { Self.order(fileIDs, fileIDEnds, count, radix: true) }

    /// Rows in relativePath order.
    func relativePathOrder() -> [Int32] { Self.order(paths, pathEnds, count) }

    /// Rows in domain order (domains sorted, rows of one domain by rowid).
    func domainOrder() -> [Int32] {
        let sorted = domains.indices.sorted { Self.less(domains[$0][...], domains[$1][...]) }
        var rank = [Int](repeating: 0, count: domains.count)
        for (position, domain) in sorted.enumerated() { rank[domain] = position }
        return Self.bucketed(count: count, buckets: domains.count) { rank[Int(domainOfRow[$0])] }
    }

    /// Rows in flags order (by value, then rowid).
    func flagsOrder() -> [Int32] {
        Self.bucketed(count: count, buckets: 256) { Int(flags[$0]) }
    }

    /// Rows grouped by `bucket` (ascending), each group in row order.
    private static func bucketed(count: Int, buckets: Int, _ bucket: (Int) -> Int) -> [Int32] {
        var starts = [Int](repeating: 0, count: buckets + 1)
        for row in 0..<count { starts[bucket(row) + 1] += 1 }
        for index in 0..<buckets { starts[index + 1] += starts[index] }
        var order = [Int32](repeating: 0, count: count)
        for row in 0..<count {
            let slot = bucket(row)
            order[starts[slot]] = Int32(row)
            starts[slot] += 1
        }
        return order
    }

    /// SQLite's BINARY comparison: bytes, then length.
    static func less(_ left: ArraySlice<UInt8>, _ right: ArraySlice<UInt8>) -> Bool {
        compare(left, right) < 0
    }

    private static func compare(_ left: ArraySlice<UInt8>, _ right: ArraySlice<UInt8>) -> Int {
        let common = min(left.count, right.count)
        let result = left.withUnsafeBytes { l in right.withUnsafeBytes { r in
            common == 0 ? 0 : memcmp(l.baseAddress!, r.baseAddress!, common)
        } }
        if result != 0 { return Int(result) }
        return left.count - right.count
    }

    /// An entry to sort: the first eight bytes of its value, big-endian, and its row.
    private struct Key {
        let prefix: UInt64
        let row: Int32
    }

    /// Rows sorted by their value in `bytes` (row `i`'s is `bytes[ends[i]..<ends[i + 1]]`), ties by row. The
    /// first eight bytes, big-endian, decide most comparisons. With `radix`, the rows are put in order of those
    /// bytes by a radix sort (stable: ties stay in row order), and only rows that share them are compared further:
    /// for values that differ early, as hashes do.
    private static func order(_ bytes: [UInt8], _ ends: [Int], _ count: Int, radix: Bool = false) -> [Int32] {
        var keys: [Key] = []
        keys.reserveCapacity(count)
        bytes.withUnsafeBytes { buffer in
            for row in 0..<count {
                var prefix: UInt64 = 0
                let start = ends[row], length = ends[row + 1] - start
                for index in 0..<8 {
                    prefix <<= 8
                    if index < length { prefix |= UInt64(buffer[start + index]) }
                }
                keys.append(Key(prefix: prefix, row: Int32(row)))
            }
        }
        bytes.withUnsafeBytes { buffer in
            let less = { (left: Key, right: Key) -> Bool in
                if left.prefix != right.prefix { return left.prefix < right.prefix }
                let l = Int(left.row), r = Int(right.row)
                let leftStart = ends[l], leftLength = ends[l + 1] - leftStart
                let rightStart = ends[r], rightLength = ends[r + 1] - rightStart
                let common = min(leftLength, rightLength)
                if common > 8 {
                    let result = memcmp(buffer.baseAddress! + leftStart + 8, buffer.baseAddress! + rightStart + 8, common - 8)
                    if result != 0 { return result < 0 }
                }
                if leftLength != rightLength { return leftLength < rightLength }
                return l < r
            }
            guard radix else { return keys.sort(by: less) }
            radixSort(&keys)
            var start = 0
            while start < keys.count {
                var end = start + 1
                while end < keys.count && keys[end].prefix == keys[start].prefix { end += 1 }
                if end - start > 1 { keys[start..<end].sort(by: less) }
                start = end
            }
        }
        return keys.map(\.row)
    }

    /// Sorts `keys` by prefix, stably: least significant byte first, a pass a byte (a byte all keys share skipped).
    private static func radixSort(_ keys: inout [Key]) {
        var other = keys
        var counts = [Int](repeating: 0, count: 256)
        for pass in 0..<8 {
            let shift = UInt64(8 * pass)
            let moved = keys.withUnsafeBufferPointer { from in
                other.withUnsafeMutableBufferPointer { to in
                    counts.withUnsafeMutableBufferPointer { counts -> Bool in
                        for index in counts.indices { counts[index] = 0 }
                        for key in from { counts[Int(truncatingIfNeeded: key.prefix >> shift) & 0xFF] += 1 }
                        if counts.contains(from.count) { return false }
                        var position = 0
                        for index in counts.indices { (counts[index], position) = (position, position + counts[index]) }
                        for key in from {
                            let digit = Int(truncatingIfNeeded: key.prefix >> shift) & 0xFF
                            to[counts[digit]] = key
                            counts[digit] += 1
                        }
                        return true
                    }
                }
            }
            if moved { swap(&keys, &other) }
        }
    }
}
