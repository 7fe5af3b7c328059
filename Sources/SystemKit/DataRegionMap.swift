// DataRegionMap: where a file with holes keeps its data (lseek SEEK_DATA/SEEK_HOLE on an open descriptor), with
// holes too small to be worth keeping merged into the data around them.
import Glibc

/// The data regions of a file with holes, in order, 4 KiB-aligned and apart: every byte outside them reads as
/// zero. Found with `lseek(SEEK_DATA)` and `lseek(SEEK_HOLE)` (`scan`). A hole smaller than `minimumHole` (between
/// two regions, at the start or at the end) stays in the data around it; while there would be more than the
/// maximum number of regions, `minimumHole` doubles and the regions merge again, so the largest holes are the ones
/// kept and the map stays bounded however the file is laid out.
public struct DataRegionMap: Sendable, Equatable {
    /// One run of data: `length` bytes at `offset`.
    public struct Region: Sendable, Equatable {
        public var offset: UInt64
        public var length: UInt64

        public init(offset: UInt64, length: UInt64) {
            self.offset = offset
            self.length = length
        }

        /// The offset just past the region.
        public var end: UInt64 { offset + length }
    }

    /// The regions, in order; empty when the whole file is a hole.
    public private(set) var regions: [Region] = []
    /// The file's size (its logical bytes: data and holes).
    public let size: UInt64
    /// The smallest hole kept: the one asked for, doubled for as long as the regions were too many.
    public private(set) var minimumHole: UInt64
    private let maximumRegions: Int

    /// Region boundaries are rounded out to this (file systems keep holes in whole blocks).
    public static let alignment: UInt64 = 4096
    /// Holes below this are not worth a sparse map's entry.
    public static let defaultMinimumHole: UInt64 = 64 << 10
    /// Well under what readers accept (libarchive keeps one allocation an entry; devicectl's reader refuses more
    /// than 100,000), and 64 KiB as the backup's batches carry it.
    public static let defaultMaximumRegions = 4096

    /// Bytes in data regions.
    public var dataBytes: UInt64 { regions.reduce(0) { $0 + $1.length } }

    /// Whether the file has a hole (the regions are not the whole file).
    public var hasHoles: Bool {
        size > 0 && !(regions.count == 1 && regions[0].offset == 0 && regions[0].length == size)
    }

    private init(size: UInt64, minimumHole: UInt64, maximumRegions: Int) {
        self.size = size
        self.minimumHole = minimumHole
        self.maximumRegions = maximumRegions
    }

    /// Whether a file of `status` may have a hole of `minimumHole` bytes: a regular file with that many bytes fewer
    /// allocated than its size. Only such a file is scanned, so a file without holes costs no system call.
    public static func mayHaveHoles(_ status: FileStatus, minimumHole: UInt64 = defaultMinimumHole) -> Bool {
        status.kind == .regular && status.size >= minimumHole && status.allocatedBytes <= status.size - minimumHole
    }

    /// The data regions of the open file `descriptor`, `size` bytes long when it was examined (the caller checks
    /// afterwards that it did not change meanwhile). Two `lseek` calls a region; the file offset moves.
    /// - Returns: nil when the file has no hole of `minimumHole` bytes, or its file system cannot say (`EINVAL`,
    ///   `EOPNOTSUPP`): then it is read whole.
    /// - Throws: `SystemError` naming `lseek` and `path` when the file system fails otherwise (`EIO`).
    public static func scan(
        descriptor: Int32, size: UInt64, minimumHole: UInt64 = defaultMinimumHole,
        maximumRegions: Int = defaultMaximumRegions, path: @autoclosure () -> String
    ) throws(SystemError) -> DataRegionMap? {
        var map = DataRegionMap(
            size: size, minimumHole: max(minimumHole, alignment), maximumRegions: max(1, maximumRegions))
        var offset: UInt64 = 0
        while offset < size {
            let data = Kernel.seek(descriptor, to: Int64(offset), .data)
            if data < 0 {
                let code = errno
                if code == ENXIO { break }  // no data from `offset` on: the rest is a hole
                if code == EINVAL || code == EOPNOTSUPP { return nil }
                throw SystemError("lseek", path: path(), code: code)
            }
            let start = UInt64(data)
            if start >= size { break }
            var end = size
            let hole = Kernel.seek(descriptor, to: data, .hole)
            if hole < 0 {
                let code = errno
                if code == EINVAL || code == EOPNOTSUPP { return nil }
                // ENXIO: the file shrank meanwhile; reading it to `size` fails, naming the change.
                if code != ENXIO { throw SystemError("lseek", path: path(), code: code) }
            } else {
                end = min(max(UInt64(hole), start + 1), size)
            }
            map.add(start, end)
            offset = end
        }
        map.finish()
        return map.hasHoles ? map : nil
    }

    // MARK: - Merging

    /// Adds the data at `start..<end` (after every region so far), rounded out to `alignment`.
    private mutating func add(_ start: UInt64, _ end: UInt64) {
        let start = start / Self.alignment * Self.alignment
        let end = min((end + Self.alignment - 1) / Self.alignment * Self.alignment, size)
        if let last = regions.last, start <= last.end || start - last.end < minimumHole {
            regions[regions.count - 1].length = max(end, last.end) - last.offset
        } else {
            regions.append(Region(offset: start, length: end - start))
        }
        while regions.count > maximumRegions {
            minimumHole = minimumHole > UInt64.max / 2 ? UInt64.max : minimumHole * 2
            coalesce()
        }
    }

    /// Merges the regions apart by less than `minimumHole`.
    private mutating func coalesce() {
        guard regions.count > 1 else { return }
        var kept = 0
        for index in 1..<regions.count {
            let region = regions[index]
            if region.offset - regions[kept].end < minimumHole {
                regions[kept].length = region.end - regions[kept].offset
            } else {
                kept += 1
                regions[kept] = region
            }
        }
        regions.removeSubrange((kept + 1)...)
    }

    /// Leaves a hole at the start or the end only when it is `minimumHole` bytes or more.
    private mutating func finish() {
        guard let first = regions.first, let last = regions.last else {
            if size > 0 && size < minimumHole { regions = [Region(offset: 0, length: size)] }
            return
        }
        if first.offset < minimumHole { regions[0] = Region(offset: 0, length: first.end) }
        if size - last.end < minimumHole {
            regions[regions.count - 1].length = size - regions[regions.count - 1].offset
        }
    }
}
