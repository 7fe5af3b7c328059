// DirectoryEntries: the names in a directory descriptor, read by SystemKit's one lister (DirectoryListing).
import Glibc
import SystemKit

/// One directory entry: raw name bytes and whether `d_type` says directory.
struct DirectoryEntry {
    let name: [UInt8]
    let isDirectory: Bool
}

enum DirectoryEntries {
    /// Every entry of `directory` except `.` and `..`, sorted bytewise (the descriptor itself is not consumed:
    /// the names are read through a second descriptor of the same directory).
    static func list(_ directory: Int32, display: String) throws(SystemError) -> [DirectoryEntry] {
        let copy = FileDescriptor(
            rawValue: try SystemError.check("openat", path: display) {
                openat(directory, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            }, path: display)
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 32 << 10, alignment: 8)
        defer { scratch.deallocate() }
        let listing = try DirectoryListing.read(directory: copy.rawValue, path: display, scratch: scratch)
        return listing.entries.indices.map { index in
            DirectoryEntry(name: listing.name(at: index), isDirectory: listing.entries[index].type == UInt8(DT_DIR))
        }
    }
}
