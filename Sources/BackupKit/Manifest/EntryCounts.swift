// EntryCounts: how many entries of each kind, and the bytes of the files' data: the one counts value.

/// Regular files, the bytes of their data, directories, symbolic links and hard links (names stored as links to
/// an earlier member), as backup, restore, verify and list count them. The manifest's `totals` line and the CLI's
/// JSON keep their own records of it (`Manifest.Totals`, `JSONCounts`), so their formats never follow a rename here.
public struct EntryCounts: Sendable, Equatable {
    public var files: UInt64 = 0
    public var bytes: UInt64 = 0
    public var directories: UInt64 = 0
    public var symlinks: UInt64 = 0
    public var hardlinks: UInt64 = 0

    public init(files: UInt64 = 0, bytes: UInt64 = 0, directories: UInt64 = 0, symlinks: UInt64 = 0, hardlinks: UInt64 = 0) {
        self.files = files
        self.bytes = bytes
        self.directories = directories
        self.symlinks = symlinks
        self.hardlinks = hardlinks
    }
}
