// DirectoryListingTests: getdents64 listing, sorted bytewise, with binary search.
import Foundation
import Glibc
import SystemKit
import TestSupport
import Testing

@Suite struct DirectoryListingTests {
    private func list(_ path: String) throws -> DirectoryListing {
        let fd = open(path, O_RDONLY | O_DIRECTORY)
        #expect(fd >= 0)
        defer { close(fd) }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 8)
        defer { scratch.deallocate() }
        return try DirectoryListing.read(directory: fd, path: path, scratch: scratch)
    }

    @Test func namesAreSortedBytewiseWithoutDotEntries() throws {
        try withTemporaryDirectory { dir in
            let names = ["b", "B", "a", "é", "z", ".hidden", "a.b", "a-b", "ab", "Z0"]
            for name in names { _ = FileManager.default.createFile(atPath: "\(dir)/\(name)", contents: nil) }
            let listing = try list(dir)
            let found = (0..<listing.count).map { String(decoding: listing.name(at: $0), as: UTF8.self) }
            #expect(found == names.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
            #expect(listing.contains(Array("é".utf8)))
            #expect(listing.contains(Array("a".utf8)))
            #expect(!listing.contains(Array("c".utf8)))
            #expect(!listing.contains(Array("a.".utf8)))
            #expect(!listing.contains(Array(".".utf8)))
        }
    }

    @Test func aLargeDirectoryNeedsManyReadsAndLosesNothing() throws {
        try withTemporaryDirectory { dir in
            // 700 long names: far more than one 4 KiB getdents64 buffer.
            let names = (0..<700).map { String(format: "%04d-", ($0 * 7919) % 700) + String(repeating: "n", count: 90) }
            for name in names { _ = FileManager.default.createFile(atPath: "\(dir)/\(name)", contents: nil) }
            let listing = try list(dir)
            #expect(listing.count == 700)
            let found = (0..<listing.count).map { String(decoding: listing.name(at: $0), as: UTF8.self) }
            #expect(found == names.sorted())
        }
    }
}
