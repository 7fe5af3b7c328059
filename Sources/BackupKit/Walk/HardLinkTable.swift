// HardLinkTable: the first archived name of each multiply-linked file, until all its links are seen.
import Glibc

/// Remembers (device, inode) → first member name for files with more than one link, so later names
/// become hard-link members. An entry is dropped once every link has been seen: memory tracks only
/// the links still pending, not the tree.
struct HardLinkTable {
    private struct Key: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    private var pending: [Key: (name: [CChar], remaining: UInt32)] = [:]

    /// The member name to link to, if this inode was archived before. Counts the link as seen.
    mutating func target(device: UInt64, inode: UInt64) -> [CChar]? {
        let key = Key(device: device, inode: inode)
        guard var found = pending[key] else { return nil }
        found.remaining -= 1
        pending[key] = found.remaining == 0 ? nil : found
        return found.name
    }

    /// Records `name` (NUL-terminated) as the archived copy of an inode with `links` names in all.
    mutating func remember(device: UInt64, inode: UInt64, name: UnsafePointer<CChar>, links: UInt32) {
        guard links > 1 else { return }
        let length = strlen(name)
        let bytes = Array(UnsafeBufferPointer(start: name, count: length + 1))
        pending[Key(device: device, inode: inode)] = (bytes, links - 1)
    }
}
