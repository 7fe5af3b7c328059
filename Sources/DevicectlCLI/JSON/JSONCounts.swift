// JSONCounts: what a tree, an archive or a restore holds, by the same five names everywhere.

/// `{"files", "bytes", "directories", "symlinks", "hardlinks"}`: regular files, the bytes of their data,
/// and the other entries, as backup, restore, verify and list count them.
struct JSONCounts: Codable, Equatable, Sendable {
    var files: UInt64
    var bytes: UInt64
    var directories: UInt64
    var symlinks: UInt64
    var hardlinks: UInt64
}
