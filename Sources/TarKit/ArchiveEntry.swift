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

    /// Adds an extended attribute (stored as `SCHILY.xattr.<name>`).
    public func addExtendedAttribute(name: UnsafePointer<CChar>, value: UnsafeRawBufferPointer) {
        archive_entry_xattr_add_entry(raw, name, value.baseAddress, value.count)
    }
}
