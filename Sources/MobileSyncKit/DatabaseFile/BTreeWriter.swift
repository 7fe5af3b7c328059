// BTreeWriter: b-trees written bottom-up from cells in key order: overflow chains, interior levels, the root.

/// Writes b-tree pages into `DatabasePages` (file format §1.6): a cell's payload beyond what its page keeps
/// goes to a chain of overflow pages; a table's interior levels are built over its leaves, an index's whole tree
/// from its records in key order. Every page is filled as far as it goes, except that no page is left without a
/// cell (the last page of a level takes one from the page before). The root is written to the page number the
/// schema names. Each page's pointer-map entry is recorded.
struct BTreeWriter {
    let pages: DatabasePages
    /// Scratch pages: one for b-tree pages, one for overflow pages.
    private let page = PageBuffer()
    private let overflowPage = PageBuffer()

    static let usable = DatabasePages.size
    /// The least payload a page keeps of a cell that overflows (§1.6: M).
    static let minLocal = (usable - 12) * 32 / 255 - 23
    /// The most payload an index page keeps of a cell (X for index pages).
    static let maxLocalIndex = (usable - 12) * 64 / 255 - 23
    /// The most payload a table leaf keeps of a cell (X for table leaves).
    static let maxLocalTableLeaf = usable - 35

    init(pages: DatabasePages) {
        self.pages = pages
    }

    /// The payload bytes a page keeps of a cell of `payload` bytes (the rest overflows).
    static func localLength(payload: Int, maxLocal: Int) -> Int {
        if payload <= maxLocal { return payload }
        let kept = minLocal + (payload - minLocal) % (usable - 4)
        return kept <= maxLocal ? kept : minLocal
    }

    /// Bytes of an index cell (a leaf's; an interior cell adds its 4-byte child) of `payload` bytes.
    static func indexCellLength(payload: Int) -> Int {
        let local = localLength(payload: payload, maxLocal: maxLocalIndex)
        return RecordFormat.varintLength(UInt64(payload)) + local + (local < payload ? 4 : 0)
    }

    /// Writes `payload` from `offset` on to a chain of overflow pages, the first one's parent `parent` (0: not
    /// known yet; the caller records it); returns the first page's number.
    func overflow(_ payload: UnsafeRawBufferPointer, from offset: Int, parent: UInt32) throws(MobileSyncError) -> UInt32 {
        let first = try pages.allocate()
        var current = first, kind = DatabasePages.Kind.overflowFirst, owner = parent
        var offset = offset
        while true {
            pages.point(current, kind, parent: owner)
            let chunk = min(Self.usable - 4, payload.count - offset)
            let next = offset + chunk < payload.count ? try pages.allocate() : 0
            overflowPage.clear()
            RecordFormat.putUInt32(next, at: overflowPage.bytes.baseAddress!)
            (overflowPage.bytes.baseAddress! + 4).copyMemory(from: payload.baseAddress! + offset, byteCount: chunk)
            try pages.write(current, UnsafeRawBufferPointer(overflowPage.bytes))
            offset += chunk
            guard next != 0 else { return first }
            owner = current
            current = next
            kind = .overflowNext
        }
    }

    /// Reserves on `target` an index cell for a record of `payload` bytes (with `child` on an interior page) and
    /// writes its header; returns where the record's local part goes (`localLength` bytes, then, when the record
    /// overflows, 4 bytes for the first overflow page).
    private func reserveIndexCell(payload: Int, child: UInt32?, on target: PageBuffer) -> UnsafeMutableRawPointer {
        let cell = target.addCell((child == nil ? 0 : 4) + Self.indexCellLength(payload: payload))
        var offset = 0
        if let child {
            RecordFormat.putUInt32(child, at: cell)
            offset = 4
        }
        return cell + offset + RecordFormat.putVarint(UInt64(payload), at: cell + offset)
    }

    /// Adds to `target` (page `number`) an index cell of `payload`, with `child` on an interior page.
    private func addIndexCell(
        _ payload: UnsafeRawBufferPointer, child: UInt32?, to target: PageBuffer, number: UInt32
    ) throws(MobileSyncError) {
        let local = Self.localLength(payload: payload.count, maxLocal: Self.maxLocalIndex)
        let start = reserveIndexCell(payload: payload.count, child: child, on: target)
        if local > 0 { start.copyMemory(from: payload.baseAddress!, byteCount: local) }
        if local < payload.count {
            RecordFormat.putUInt32(try overflow(payload, from: local, parent: number), at: start + local)
        }
    }

    // MARK: - Tables

    /// Builds a table's interior levels over `leaves` (at least two, in rowid order: each page and its largest
    /// rowid), the top one at `root`.
    func writeTableInterior(leaves: [(page: UInt32, lastRowid: Int64)], root: UInt32) throws(MobileSyncError) {
        pages.point(root, .root, parent: 0)
        var children = leaves
        while true {
            // Groups of children, a page each: a cell for every child but the last, which is the right child.
            var groups: [Range<Int>] = []
            var index = 0
            while index < children.count {
                let start = index
                var used = 12
                index += 1
                while index < children.count {
                    let cell = 4 + RecordFormat.varintLength(UInt64(children[index - 1].lastRowid)) + 2
                    if used + cell > Self.usable { break }
                    used += cell
                    index += 1
                }
                if children.count - index == 1 { index -= 1 }  // the last page gets two children, not one
                groups.append(start..<index)
            }
            let numbers = try number(groups.count, root: root)
            for (group, number) in zip(groups, numbers) {
                page.start(.tableInterior)
                for child in group.dropLast() {
                    let rowid = UInt64(children[child].lastRowid)
                    let cell = page.addCell(4 + RecordFormat.varintLength(rowid))
                    RecordFormat.putUInt32(children[child].page, at: cell)
                    RecordFormat.putVarint(rowid, at: cell + 4)
                }
                for child in group { pages.point(children[child].page, .child, parent: number) }
                page.seal(rightChild: children[group.last!].page)
                try pages.write(number, UnsafeRawBufferPointer(page.bytes))
            }
            if numbers.count == 1 { return }
            children = zip(groups, numbers).map { group, number in (number, children[group.last!].lastRowid) }
        }
    }

    // MARK: - Indexes

    /// Writes the index of `entries` (in key order), its root at `root`.
    func writeIndex(_ entries: IndexEntries, root: UInt32) throws(MobileSyncError) {
        pages.point(root, .root, parent: 0)
        let count = entries.count
        // Each record's length, found once (the layout and the cells both need it).
        var lengths = [Int32](repeating: 0, count: count)
        for index in 0..<count { lengths[index] = Int32(entries.length(index)) }
        var buffer: [UInt8] = []
        /// Adds entry `index`'s cell to the page being filled: the record written in place when the page keeps all
        /// of it, else made in `buffer` and split between the page and an overflow chain.
        func add(_ index: Int, child: UInt32?, number: UInt32) throws(MobileSyncError) {
            let length = Int(lengths[index])
            if length <= Self.maxLocalIndex {
                entries.write(index, at: reserveIndexCell(payload: length, child: child, on: page))
                return
            }
            if buffer.count < length { buffer = [UInt8](repeating: 0, count: length) }
            try buffer.withUnsafeMutableBytes { record in
                entries.write(index, at: record.baseAddress!)
                let payload = UnsafeRawBufferPointer(rebasing: record[0..<length])
                return Result { () throws(MobileSyncError) in
                    try addIndexCell(payload, child: child, to: page, number: number)
                }
            }.get()
        }
        // Leaves: records while they fit; the one that does not goes up as the separator of the next leaf.
        var leaves: [Range<Int>] = []
        var separators: [Int] = []
        var index = 0
        while index < count {
            let start = index
            var used = 8
            while index < count {
                let cell = Self.indexCellLength(payload: Int(lengths[index])) + 2
                if used + cell > Self.usable { break }
                used += cell
                index += 1
            }
            guard index < count else {
                leaves.append(start..<index)
                break
            }
            if index == count - 1 { index -= 1 }  // the last record would be a separator with no leaf after it
            leaves.append(start..<index)
            separators.append(index)
            index += 1
        }
        if leaves.isEmpty { leaves = [0..<0] }
        let leafNumbers = try number(leaves.count, root: root)
        for (leaf, number) in zip(leaves, leafNumbers) {
            page.start(.indexLeaf)
            for item in leaf { try add(item, child: nil, number: number) }
            page.seal()
            try pages.write(number, UnsafeRawBufferPointer(page.bytes))
        }
        // Interior levels: child i, separator i, child i + 1, ...; a page's cells are children with the
        // separator after each, its right child the child after its last cell.
        var children = leafNumbers
        while children.count > 1 {
            let last = children.count - 1
            var groups: [(cells: Range<Int>, right: Int)] = []
            var promoted: [Int] = []
            var item = 0
            while true {
                let start = item
                var used = 12
                while item < last {
                    let cell = 4 + Self.indexCellLength(payload: Int(lengths[separators[item]])) + 2
                    if used + cell > Self.usable { break }
                    used += cell
                    item += 1
                }
                guard item < last else {
                    groups.append((start..<item, last))
                    break
                }
                if item + 1 == last { item -= 1 }  // the next page would have no cell, only the last child
                groups.append((start..<item, item))
                promoted.append(separators[item])
                item += 1
            }
            let numbers = try number(groups.count, root: root)
            for (group, number) in zip(groups, numbers) {
                page.start(.indexInterior)
                for cell in group.cells {
                    try add(separators[cell], child: children[cell], number: number)
                    pages.point(children[cell], .child, parent: number)
                }
                pages.point(children[group.right], .child, parent: number)
                page.seal(rightChild: children[group.right])
                try pages.write(number, UnsafeRawBufferPointer(page.bytes))
            }
            children = numbers
            separators = promoted
        }
    }

    /// Page numbers for a level of `count` pages: the root's when it is the only one, else new ones.
    private func number(_ count: Int, root: UInt32) throws(MobileSyncError) -> [UInt32] {
        if count == 1 { return [root] }
        var numbers: [UInt32] = []
        numbers.reserveCapacity(count)
        for _ in 0..<count { numbers.append(try pages.allocate()) }
        return numbers
    }
}
