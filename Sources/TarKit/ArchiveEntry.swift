// ArchiveEntry: one reusable member description for `ArchiveWriter`, filled from a file's status.
import Glibc
import SystemKit

/// A member about to be written: its name, type, owner, times, size, link, data regions and extended attributes.
/// The backup reuses a single instance: `clear()` between members. Names and values are bytes, as the file system
/// holds them.
public final class ArchiveEntry {
    /// The member name (relative); a directory's trailing `/` is added by the writer.
    private(set) var path: [UInt8] = []
    private(set) var mode: UInt32 = 0
    private(set) var uid: UInt32 = 0
    private(set) var gid: UInt32 = 0
    private(set) var mtimeSeconds: Int64 = 0
    private(set) var mtimeNanoseconds: UInt32 = 0
    private(set) var size: Int64 = 0
    /// A symlink's target or the earlier member a hard link names.
    private(set) var link: [UInt8]?
    private(set) var isHardlink = false
    /// A sparse file's data regions (nil: not sparse; empty never: an all-hole file has one empty region at its end).
    private(set) var regions: [DataRegionMap.Region]?
    /// `user.*` attributes, in the order added.
    private(set) var attributes: [(name: [UInt8], value: [UInt8])] = []

    /// A new, empty entry.
    public init() {}

    /// Resets every field.
    public func clear() {
        path.removeAll(keepingCapacity: true)
        (mode, uid, gid, mtimeSeconds, mtimeNanoseconds, size) = (0, 0, 0, 0, 0, 0)
        link = nil
        isHardlink = false
        regions = nil
        attributes.removeAll(keepingCapacity: true)
    }

    /// The member name (relative). Directories get their trailing `/` from the writer.
    public func setPath(_ path: UnsafePointer<CChar>) {
        self.path.removeAll(keepingCapacity: true)
        self.path.append(contentsOf: UnsafeRawBufferPointer(start: path, count: strlen(path)))
    }

    /// The member name.
    public func setPath(_ path: String) {
        self.path = Array(path.utf8)
    }

    /// Type, permission bits, numeric owner (no names), mtime to the nanosecond and size.
    public func setMetadata(mode: UInt32, uid: UInt32, gid: UInt32, mtime seconds: Int64, nanoseconds: UInt32, size: Int64) {
        self.mode = mode
        self.uid = uid
        self.gid = gid
        mtimeSeconds = seconds
        mtimeNanoseconds = min(nanoseconds, 999_999_999)
        self.size = max(0, size)
    }

    /// Type, permissions, owner and mtime from `status`; size from `status` for regular files, else 0.
    public func setMetadata(_ status: FileStatus) {
        setMetadata(
            mode: status.mode, uid: status.uid, gid: status.gid, mtime: status.mtimeSeconds,
            nanoseconds: status.mtimeNanoseconds, size: status.kind == .regular ? Int64(status.size) : 0)
    }

    /// Makes this member a symlink to `target`.
    public func setSymlink(_ target: UnsafePointer<CChar>) {
        link = Array(UnsafeRawBufferPointer(start: target, count: strlen(target)))
        isHardlink = false
    }

    /// Makes this member a hard link to the earlier member `target` (no data follows).
    public func setHardlink(_ target: UnsafePointer<CChar>) {
        link = Array(UnsafeRawBufferPointer(start: target, count: strlen(target)))
        isHardlink = true
        size = 0
    }

    /// Makes this file member sparse: its data lies in `regions` (in order and apart; none: the whole file is a hole),
    /// every other byte is zero. Call after `setMetadata`, whose size bounds them. The writer then stores a GNU sparse
    /// 1.0 member (pax `GNU.sparse.major`/`minor`/`name`/`realsize`, the map at the start of its data, which GNU tar
    /// and bsdtar restore with its holes) and still takes the whole logical content through `ArchiveWriter.writeData`,
    /// dropping the bytes that fall in holes.
    /// - Throws: `ArchiveWriterError` for a map that is not one: a region out of order, overlapping or touching the
    ///   one before, past the size, or one region covering the whole file (the rules libarchive's writer kept).
    public func setDataRegions(_ regions: some Collection<DataRegionMap.Region>) throws(ArchiveWriterError) {
        var kept: [DataRegionMap.Region] = []
        var end: UInt64 = 0
        for region in regions {
            let (last, overflow) = region.offset.addingReportingOverflow(region.length)
            guard !overflow, last <= UInt64(size), kept.isEmpty || region.offset > end else {
                throw refused(regions.count)
            }
            kept.append(region)
            end = last
        }
        // An all-hole file: one empty region at its end, as GNU tar writes it.
        if kept.isEmpty { kept = [DataRegionMap.Region(offset: UInt64(size), length: 0)] }
        if kept.count == 1 && kept[0].offset == 0 && kept[0].length >= UInt64(size) { throw refused(regions.count) }
        self.regions = kept
    }

    private func refused(_ count: Int) -> ArchiveWriterError {
        ArchiveWriterError(
            call: "setDataRegions", entry: String(decoding: path, as: UTF8.self),
            message: "the sparse map of \(count) regions was not taken whole")
    }

    /// Adds an extended attribute (stored as `SCHILY.xattr.<name>`).
    public func addExtendedAttribute(name: UnsafePointer<CChar>, value: UnsafeRawBufferPointer) {
        attributes.append((Array(UnsafeRawBufferPointer(start: name, count: strlen(name))), Array(value)))
    }
}
