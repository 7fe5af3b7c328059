// DirectoryListing: the names in one directory, read with getdents64 and sorted bytewise.
import CSupport
import Glibc

/// Every name in one directory (without `.` and `..`), sorted bytewise, in two allocations:
/// one byte buffer of NUL-terminated names and one array of entries pointing into it.
/// Built for the backup walker: no per-name allocation, deterministic order.
public struct DirectoryListing: Sendable {
    /// One name: where it starts in the byte buffer, its length (without the NUL) and the `d_type`.
    public struct Entry: Sendable {
        public let offset: Int32
        public let length: Int32
        /// `DT_REG`, `DT_DIR`, `DT_LNK`..., or `DT_UNKNOWN` when the file system does not say.
        public let type: UInt8
    }

    private var bytes: [UInt8] = []
    public private(set) var entries: [Entry] = []

    public init() {}

    /// The number of names.
    public var count: Int { entries.count }

    /// Reads every name of the open directory `fd` (from its current offset, normally 0) and sorts them (unless
    /// `sorted` is false: a count needs no order). `scratch` is the getdents64 buffer, reused across calls; `path`
    /// only names the directory in errors.
    public static func read(
        directory fd: Int32, path: @autoclosure () -> String, scratch: UnsafeMutableRawBufferPointer,
        sorted: Bool = true
    ) throws(SystemError) -> DirectoryListing {
        var listing = DirectoryListing()
        listing.bytes.reserveCapacity(1024)
        while true {
            let filled = csupport_getdents64(fd, scratch.baseAddress, scratch.count)
            if filled < 0 {
                let code = errno
                if code == EINTR { continue }
                throw SystemError("getdents64", path: path(), code: code)
            }
            if filled == 0 { break }
            var offset = 0
            var record = csupport_dirent()
            while true {
                let decoded = csupport_dirent_next(scratch.baseAddress, filled, &offset, &record)
                if decoded == 0 { break }
                if decoded < 0 { throw SystemError("getdents64", path: path()) }
                let name = UnsafeRawPointer(record.name!).assumingMemoryBound(to: UInt8.self)
                let length = record.length
                if name[0] == UInt8(ascii: ".") && (length == 1 || (length == 2 && name[1] == UInt8(ascii: "."))) {
                    continue
                }
                listing.entries.append(Entry(offset: Int32(listing.bytes.count), length: Int32(length), type: record.type))
                listing.bytes.append(contentsOf: UnsafeBufferPointer(start: name, count: length + 1))
            }
        }
        if sorted { listing.sort() }
        return listing
    }

    private mutating func sort() {
        bytes.withUnsafeBufferPointer { buffer in
            let base = buffer.baseAddress!
            entries.sort { left, right in
                let common = Int(min(left.length, right.length))
                let order = memcmp(base + Int(left.offset), base + Int(right.offset), common)
                return order != 0 ? order < 0 : left.length < right.length
            }
        }
    }

    /// Calls `body` with the name at `index`: its bytes (without the NUL) and the same bytes as a C string.
    public func withName<R>(
        at index: Int, _ body: (UnsafeBufferPointer<UInt8>, UnsafePointer<CChar>) throws -> R
    ) rethrows -> R {
        let entry = entries[index]
        return try bytes.withUnsafeBufferPointer { buffer in
            let start = buffer.baseAddress! + Int(entry.offset)
            return try body(
                UnsafeBufferPointer(start: start, count: Int(entry.length)),
                UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self))
        }
    }

    /// The name at `index` as bytes.
    public func name(at index: Int) -> [UInt8] {
        withName(at: index) { name, _ in Array(name) }
    }

    /// Whether the directory holds `name` (binary search).
    public func contains(_ name: [UInt8]) -> Bool {
        bytes.withUnsafeBufferPointer { buffer in
            name.withUnsafeBufferPointer { wanted in
                var low = 0, high = entries.count
                while low < high {
                    let middle = (low + high) / 2
                    let order = Self.compare(buffer.baseAddress!, entries[middle], wanted)
                    if order == 0 { return true }
                    if order < 0 { low = middle + 1 } else { high = middle }
                }
                return false
            }
        }
    }

    /// Bytewise order of an entry's name against `wanted`: negative, zero or positive.
    private static func compare(_ base: UnsafePointer<UInt8>, _ entry: Entry, _ wanted: UnsafeBufferPointer<UInt8>) -> Int {
        let length = Int(entry.length)
        let common = min(length, wanted.count)
        if common > 0 {
            let order = memcmp(base + Int(entry.offset), wanted.baseAddress!, common)
            if order != 0 { return Int(order) }
        }
        return length - wanted.count
    }
}
