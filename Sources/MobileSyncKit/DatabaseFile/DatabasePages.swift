// DatabasePages: the pages of a database file being written: their numbers, the pointer map, their writing.
import Glibc
import SystemKit

/// Numbers the pages of an auto-vacuum SQLite database of 4096-byte pages as they are needed (skipping the
/// pointer-map pages and the lock-byte page, as SQLite does), keeps each page's pointer-map entry (its kind and
/// parent), and writes pages to the file, runs of consecutive pages in one `pwrite`. `finish()` writes the
/// pointer-map pages. Used on one thread at a time.
final class DatabasePages {
    static let size = 4096
    /// The pages one pointer-map page describes, and itself.
    static let mapSpan = UInt32(size / 5 + 1)
    /// The page holding the byte at offset 2^30, which SQLite never uses (file locking).
    static let lockBytePage = UInt32(0x4000_0000 / size + 1)

    /// A page's pointer-map entry: what the page is.
    enum Kind: UInt8 {
        case root = 1, overflowFirst = 3, overflowNext = 4, child = 5
    }

    private let descriptor: Int32
    private let shown: String
    /// The highest page number given out.
    private(set) var count: UInt32 = 0
    /// Each page's entry (by page number; 0 for none), and its parent.
    private var kinds: [UInt8] = [0]
    private var parents: [UInt32] = [0]
    /// Pages written but not yet flushed: consecutive, from `runStart`.
    private let run = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * DatabasePages.size, alignment: 16)
    private var runStart: UInt32 = 0
    private var runCount = 0

    /// Pages for the file open as `descriptor` (borrowed), named `shown` in messages.
    init(descriptor: Int32, shown: String) {
        self.descriptor = descriptor
        self.shown = shown
    }

    deinit {
        run.deallocate()
    }

    /// The pointer-map page describing `page` (SQLite's `ptrmapPageno`).
    static func mapPage(of page: UInt32) -> UInt32 {
        let map = (page - 2) / mapSpan * mapSpan + 2
        return map == lockBytePage ? map + 1 : map
    }

    private static func isReserved(_ page: UInt32) -> Bool {
        page == lockBytePage || (page >= 2 && mapPage(of: page) == page)
    }

    /// The next unused page's number.
    func allocate() throws(MobileSyncError) -> UInt32 {
        repeat {
            guard count < UInt32.max - 1 else { throw .file(SystemError("pwrite", path: shown, code: EFBIG)) }
            count += 1
        } while Self.isReserved(count)
        while kinds.count <= Int(count) {
            kinds.append(0)
            parents.append(0)
        }
        return count
    }

    /// Records what `page` is (its pointer-map entry).
    func point(_ page: UInt32, _ kind: Kind, parent: UInt32) {
        kinds[Int(page)] = kind.rawValue
        parents[Int(page)] = parent
    }

    /// Writes `page` (`size` bytes).
    func write(_ page: UInt32, _ bytes: UnsafeRawBufferPointer) throws(MobileSyncError) {
        if runCount > 0, page != runStart + UInt32(runCount) || runCount * Self.size == run.count { try flush() }
        if runCount == 0 { runStart = page }
        (run.baseAddress! + runCount * Self.size).copyMemory(from: bytes.baseAddress!, byteCount: Self.size)
        runCount += 1
    }

    /// Writes the pages held back.
    func flush() throws(MobileSyncError) {
        guard runCount > 0 else { return }
        let pages = UnsafeRawBufferPointer(start: run.baseAddress, count: runCount * Self.size)
        do {
            try Kernel.writeAll(descriptor, pages, at: UInt64(runStart - 1) * UInt64(Self.size), path: shown)
        } catch { throw .file(error) }
        runCount = 0
    }

    /// Writes every pointer-map page (all pages numbered and their entries recorded) and what is held back.
    func finish() throws(MobileSyncError) {
        let page = PageBuffer()
        var map: UInt32 = 0
        var described: UInt32 = 3
        while described <= count {
            defer { described += 1 }
            guard !Self.isReserved(described) else { continue }
            let owner = Self.mapPage(of: described)
            if owner != map {
                if map != 0 { try write(map, UnsafeRawBufferPointer(page.bytes)) }
                map = owner
                page.clear()
            }
            let offset = 5 * Int(described - map - 1)
            page.bytes[offset] = kinds[Int(described)]
            RecordFormat.putUInt32(parents[Int(described)], at: page.bytes.baseAddress! + offset + 1)
        }
        if map != 0 { try write(map, UnsafeRawBufferPointer(page.bytes)) }
        try flush()
    }
}
