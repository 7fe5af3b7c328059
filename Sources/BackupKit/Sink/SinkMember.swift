// SinkMember: one member as a format sink receives it, borrowed for one `FormatSink.begin` call.
import SystemKit

/// A member in archive order: its name, type, permissions, numeric owner, mtime, link and `user.*` attributes.
/// Every pointer is borrowed for the call that receives it.
struct SinkMember {
    /// What the member is. A hard link names an earlier member (`link`) and carries no data.
    enum Kind {
        case directory, file, symlink, hardlink
    }

    var kind: Kind
    /// The path relative to ROOT, NUL-terminated (`count` bytes before the NUL).
    var path: UnsafeBufferPointer<CChar>
    /// The symlink's target, or the earlier member a hard link names; NUL-terminated.
    var link: UnsafeBufferPointer<CChar>?
    /// `st_mode`: file type and permission bits.
    var mode: UInt32
    var uid: UInt32
    var gid: UInt32
    var mtimeSeconds: Int64
    var mtimeNanoseconds: UInt32
    /// File data that follows in `FormatSink.write` calls (0 for anything but a file).
    var size: UInt64
    /// The `user.*` attributes, sorted by name, each `[name length u32][value length u32][name NUL][value]`.
    var attributes: UnsafeRawBufferPointer
    /// A file with holes: where its data lies (in order; empty when the whole file is a hole); nil for any other
    /// member. Its `size` bytes still all come through `FormatSink.write`, zeros for the holes, so a format without
    /// holes stores them as they read; the tar format stores a sparse member and drops them.
    var dataRegions: UnsafeBufferPointer<DataRegionMap.Region>? = nil
    /// A file with more than one name: a later hard-link member may name it.
    var linked = false
    /// A file whose data comes later, after `FormatSink.membersComplete()`, at its `FormatSink.resume(size:)`.
    var deferred = false

    /// Calls `body` with each attribute: its NUL-terminated name and its value.
    func forEachAttribute(_ body: (UnsafeBufferPointer<CChar>, UnsafeRawBufferPointer) throws -> Void) rethrows {
        var offset = 0
        while offset < attributes.count {
            let nameLength = Int(attributes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            let valueLength = Int(attributes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
            let name = (attributes.baseAddress! + offset + 8).assumingMemoryBound(to: CChar.self)
            let value = UnsafeRawBufferPointer(
                start: attributes.baseAddress! + offset + 8 + nameLength + 1, count: valueLength)
            try body(UnsafeBufferPointer(start: name, count: nameLength), value)
            offset += 8 + nameLength + 1 + valueLength
        }
    }
}
