// ArchiveEntry: one reusable libarchive `archive_entry`, filled from a file's status.
import CArchive
import SystemKit

/// Owns one `struct archive_entry`. The backup reuses a single instance: `clear()` between members.
public final class ArchiveEntry {
    let raw: OpaquePointer

    /// A new, empty entry.
    public init() {
        raw = archive_entry_new()
    }

    deinit {
        archive_entry_free(raw)
    }

    /// Resets every field.
    public func clear() {
        archive_entry_clear(raw)
    }

    /// The member name (UTF-8, relative). Directories get their trailing `/` from the pax writer.
    public func setPath(_ path: UnsafePointer<CChar>) {
        archive_entry_copy_pathname(raw, path)
    }

    /// The member name.
    public func setPath(_ path: String) {
        archive_entry_copy_pathname(raw, path)
    }

    /// Type, permission bits, numeric owner (no names), mtime to the nanosecond and size.
    public func setMetadata(mode: UInt32, uid: UInt32, gid: UInt32, mtime seconds: Int64, nanoseconds: UInt32, size: Int64) {
        archive_entry_set_mode(raw, mode)
        archive_entry_set_uid(raw, Int64(uid))
        archive_entry_set_gid(raw, Int64(gid))
        archive_entry_set_mtime(raw, Int(seconds), Int(nanoseconds))
        archive_entry_set_size(raw, size)
    }

    /// Type, permissions, owner and mtime from `status`; size from `status` for regular files, else 0.
    public func setMetadata(_ status: FileStatus) {
        setMetadata(
            mode: status.mode, uid: status.uid, gid: status.gid, mtime: status.mtimeSeconds,
            nanoseconds: status.mtimeNanoseconds, size: status.kind == .regular ? Int64(status.size) : 0)
    }

    /// Makes this member a symlink to `target`.
    public func setSymlink(_ target: UnsafePointer<CChar>) {
        archive_entry_copy_symlink(raw, target)
    }

    /// Makes this member a hard link to the earlier member `target` (no data follows).
    public func setHardlink(_ target: UnsafePointer<CChar>) {
        archive_entry_copy_hardlink(raw, target)
        archive_entry_set_size(raw, 0)
    }

    /// Makes this file member sparse: its data lies in `regions` (in order and apart; none: the whole file is a hole),
    /// every other byte is zero. Call after `setMetadata`, whose size bounds them. libarchive's pax writer then
    /// stores a GNU sparse 1.0 member (pax `GNU.sparse.major`/`minor`/`name`/`realsize`, the map at the start of its
    /// data, which GNU tar and bsdtar restore with its holes) and still takes the whole logical content through
    /// `ArchiveWriter.writeData`, dropping the bytes that fall in holes.
    /// - Throws: `ArchiveWriterError` when libarchive kept another map (a region out of order, touching the one
    ///   before, past the size, or one covering the whole file).
    public func setDataRegions(_ regions: some Collection<DataRegionMap.Region>) throws(ArchiveWriterError) {
        let size = archive_entry_size(raw)
        for region in regions {
            archive_entry_sparse_add_entry(
                raw, Int64(truncatingIfNeeded: region.offset), Int64(truncatingIfNeeded: region.length))
        }
        // An all-hole file: one empty region at its end, as GNU tar writes it.
        if regions.isEmpty { archive_entry_sparse_add_entry(raw, size, 0) }
        // libarchive drops a region it refuses without a word: count what it kept.
        guard archive_entry_sparse_count(raw) == max(regions.count, 1) else {
            throw ArchiveWriterError(
                call: "archive_entry_sparse_add_entry", entry: String(cString: archive_entry_pathname(raw)),
                message: "the sparse map of \(regions.count) regions was not taken whole")
        }
    }

    /// Adds an extended attribute (stored as `SCHILY.xattr.<name>`).
    public func addExtendedAttribute(name: UnsafePointer<CChar>, value: UnsafeRawBufferPointer) {
        archive_entry_xattr_add_entry(raw, name, value.baseAddress, value.count)
    }
}
