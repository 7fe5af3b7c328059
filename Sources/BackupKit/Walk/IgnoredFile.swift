// IgnoredFile: a file the walker passes over by identity, with the reason it says.

/// A file (device, inode) the walk never archives: the archive being written, or the one it replaces.
struct IgnoredFile: Sendable {
    let device: UInt64
    let inode: UInt64
    let reason: WalkSkip
}
