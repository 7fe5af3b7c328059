// DataRegionMapTests: the data regions lseek(SEEK_DATA/SEEK_HOLE) finds in files with holes at the start, in the
// middle, at the end, none and everywhere; small holes merged, and the map bounded.
import Glibc
import SystemKit
import TestSupport
import Testing

@Suite struct DataRegionMapTests {
    static let mib: UInt64 = 1 << 20
    static let kib: UInt64 = 1 << 10

    /// The map of a new file of `size` bytes holding `data`, with `maximumRegions`.
    static func scan(
        size: UInt64, data: [(offset: UInt64, length: UInt64)],
        maximumRegions: Int = DataRegionMap.defaultMaximumRegions
    ) throws -> (map: DataRegionMap?, status: FileStatus) {
        try withTemporaryDirectory { dir in
            let path = dir + "/file"
            try SparseFile.make(path, size: size, data: data)
            let file = try FileDescriptor.open(path, flags: O_RDONLY)
            let map = try DataRegionMap.scan(
                descriptor: file.rawValue, size: size, maximumRegions: maximumRegions, path: path)
            return (map, try file.status())
        }
    }

    static func regions(_ pairs: [(UInt64, UInt64)]) -> [DataRegionMap.Region] {
        pairs.map { DataRegionMap.Region(offset: $0.0, length: $0.1) }
    }

    @Test func holesAtTheStartInTheMiddleAndAtTheEndAreFound() throws {
        let (map, status) = try Self.scan(
            size: 4 * Self.mib, data: [(Self.mib, Self.mib / 2), (5 * Self.mib / 2, Self.mib / 2)])
        let found = try #require(map)
        #expect(found.regions == Self.regions([(Self.mib, Self.mib / 2), (5 * Self.mib / 2, Self.mib / 2)]))
        #expect(found.dataBytes == Self.mib && found.hasHoles && found.size == 4 * Self.mib)
        #expect(DataRegionMap.mayHaveHoles(status))
        #expect(status.allocatedBytes < 2 * Self.mib)
    }

    @Test func aFileWithoutHolesHasNoMapAndIsNotScanned() throws {
        let (map, status) = try Self.scan(size: 2 * Self.mib, data: [(0, 2 * Self.mib)])
        #expect(map == nil)
        #expect(!DataRegionMap.mayHaveHoles(status))
    }

    @Test func aFileThatIsAllHoleHasNoRegions() throws {
        let (map, status) = try Self.scan(size: 3 * Self.mib, data: [])
        let found = try #require(map)
        #expect(found.regions.isEmpty && found.dataBytes == 0 && found.hasHoles)
        #expect(DataRegionMap.mayHaveHoles(status) && status.allocatedBytes == 0)
    }

    @Test func onlyAHoleAtTheEnd() throws {
        let found = try #require(try Self.scan(size: 2 * Self.mib, data: [(0, Self.mib)]).map)
        #expect(found.regions == Self.regions([(0, Self.mib)]))
    }

    @Test func onlyAHoleAtTheStart() throws {
        let found = try #require(try Self.scan(size: 2 * Self.mib, data: [(Self.mib, Self.mib)]).map)
        #expect(found.regions == Self.regions([(Self.mib, Self.mib)]))
    }

    @Test func holesSmallerThanTheMinimumStayInTheData() throws {
        // 16 KiB holes: between two regions, at the start and at the end; one hole of 1 MiB kept.
        let data: [(offset: UInt64, length: UInt64)] = [
            (16 * Self.kib, 64 * Self.kib), (96 * Self.kib, 64 * Self.kib), (160 * Self.kib + Self.mib, 64 * Self.kib),
        ]
        let size = 240 * Self.kib + Self.mib
        let found = try #require(try Self.scan(size: size, data: data).map)
        #expect(found.regions == Self.regions([(0, 160 * Self.kib), (160 * Self.kib + Self.mib, 80 * Self.kib)]))
        #expect(found.minimumHole == DataRegionMap.defaultMinimumHole)
    }

    @Test func aSmallFileOfOnlySmallHolesHasNoMap() throws {
        #expect(try Self.scan(size: 32 * Self.kib, data: []).map == nil)
        let twoBlocks: [(offset: UInt64, length: UInt64)] = [(0, 4 * Self.kib), (100 * Self.kib, 4 * Self.kib)]
        #expect(try Self.scan(size: 256 * Self.kib, data: twoBlocks).map != nil)
    }

    @Test func tooManyRegionsMergeTheSmallestHolesFirst() throws {
        // 12 data blocks of 4 KiB, the holes between them doubling: 64 KiB, 128 KiB ... 64 MiB.
        var data: [(offset: UInt64, length: UInt64)] = []
        var offset: UInt64 = 0
        for index in 0..<12 {
            data.append((offset, 4 * Self.kib))
            offset += 4 * Self.kib + (64 * Self.kib << UInt64(index))
        }
        let size = data.last!.offset + 4 * Self.kib
        let found = try #require(try Self.scan(size: size, data: data, maximumRegions: 4).map)
        // Kept: the holes of 16, 32 and 64 MiB; the smaller ones are in the first region.
        #expect(found.minimumHole == 16 * Self.mib)
        #expect(found.regions.map(\.offset) == [0] + data.suffix(3).map(\.offset))
        #expect(found.regions[0].end == data[8].offset + 4 * Self.kib)
        for block in data {
            #expect(found.regions.contains { $0.offset <= block.offset && block.offset + block.length <= $0.end })
        }
    }
}
