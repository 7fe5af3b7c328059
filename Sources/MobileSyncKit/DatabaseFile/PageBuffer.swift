// PageBuffer: one database page in memory, and a b-tree page filled in it cell by cell.

/// A page of `DatabasePages.size` bytes. As a b-tree page (file format §1.6): the header at `headerOffset` (100
/// on page 1, after the database header), the cell pointers after it in key order, the cells packed from the
/// page's end down; no freeblocks, no fragments. Zeroed when started, so every byte written is known.
final class PageBuffer {
    /// The b-tree page types.
    enum Kind: UInt8 {
        case indexInterior = 2, tableInterior = 5, indexLeaf = 10, tableLeaf = 13

        var isInterior: Bool { self == .indexInterior || self == .tableInterior }
    }

    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: DatabasePages.size, alignment: 16)
    private(set) var kind = Kind.tableLeaf
    private var headerOffset = 0
    private(set) var cellCount = 0
    private var contentStart = DatabasePages.size

    init() {
        clear()
    }

    deinit {
        bytes.deallocate()
    }

    /// Zeroes the page.
    func clear() {
        bytes.initializeMemory(as: UInt8.self, repeating: 0)
    }

    /// Starts an empty b-tree page of `kind` (its header at `headerOffset`; page 1's content before it is kept).
    func start(_ kind: Kind, headerOffset: Int = 0) {
        if headerOffset == 0 {
            clear()
        } else {
            UnsafeMutableRawBufferPointer(rebasing: bytes[headerOffset...]).initializeMemory(as: UInt8.self, repeating: 0)
        }
        self.kind = kind
        self.headerOffset = headerOffset
        cellCount = 0
        contentStart = DatabasePages.size
    }

    private var headerLength: Int { kind.isInterior ? 12 : 8 }

    /// Whether a cell of `length` bytes, and its pointer, fit.
    func fits(_ length: Int) -> Bool {
        length + 2 <= contentStart - (headerOffset + headerLength + 2 * cellCount)
    }

    /// Reserves the next cell (in key order) of `length` bytes, which must fit; returns where to write it.
    func addCell(_ length: Int) -> UnsafeMutableRawPointer {
        contentStart -= length
        let pointer = headerOffset + headerLength + 2 * cellCount
        bytes.storeBytes(of: UInt16(contentStart).bigEndian, toByteOffset: pointer, as: UInt16.self)
        cellCount += 1
        return bytes.baseAddress! + contentStart
    }

    /// Writes the page's header: its type, cell count, content start and (interior pages) right-most child.
    func seal(rightChild: UInt32 = 0) {
        bytes[headerOffset] = kind.rawValue
        bytes.storeBytes(of: UInt16(cellCount).bigEndian, toByteOffset: headerOffset + 3, as: UInt16.self)
        bytes.storeBytes(of: UInt16(contentStart).bigEndian, toByteOffset: headerOffset + 5, as: UInt16.self)
        if kind.isInterior { RecordFormat.putUInt32(rightChild, at: bytes.baseAddress! + headerOffset + 8) }
    }
}
