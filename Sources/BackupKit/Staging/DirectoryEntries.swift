// DirectoryEntries: the names in a directory descriptor (getdents via fdopendir on a duplicate).
import Glibc
import SystemKit

/// One directory entry: raw name bytes and whether `d_type` says directory.
struct DirectoryEntry {
    let name: [UInt8]
    let isDirectory: Bool
}

enum DirectoryEntries {
    /// Every entry of `directory` except `.` and `..` (the descriptor itself is not consumed).
    static func list(_ directory: Int32, display: String) throws -> [DirectoryEntry] {
        let copy = try SystemError.check("openat", path: display) {
            openat(directory, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }
        guard let stream = fdopendir(copy) else {
            Glibc.close(copy)
            throw SystemError("fdopendir", path: display)
        }
        defer { closedir(stream) }
        var result: [DirectoryEntry] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw SystemError("readdir", path: display) }
                return result
            }
            let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: UInt8.self, capacity: 256) {
                    Array(
                        UnsafeBufferPointer(
                            start: $0, count: strlen(UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))))
                }
            }
            if name == [46] || name == [46, 46] { continue }
            result.append(DirectoryEntry(name: name, isDirectory: entry.pointee.d_type == UInt8(DT_DIR)))
        }
    }
}
