// StagedNames: the names a restore would stage, kept by verify to see what restore's staging tree would refuse.
import TarKit

/// What restore's staging tree (`StagingTree`: the kernel's `O_EXCL`, `mkdirat`, `linkat` and `openat2` without
/// symlinks) refuses when it creates a member, found by verify, which creates nothing, with the same reasons: a
/// second directory member at one path, a member where an earlier one already stands (a file over a directory, two
/// files, a symlink over either), a member below a file or a symlink, a hard link whose target is no regular file
/// an earlier member made; and, once every member is placed, a directory restore's set-up must make where a file or
/// a symlink stands (`skeletonProblems`). For a tar every member counts; for a MobileSync backup only the
/// `/var/mobile` domains' (`placesContainers` false): an app domain's members go into a new container of their own,
/// and within one domain rows are unique and each one's parent is a directory row (checked on the rows).
///
/// Names are kept as 64-bit hashes of their bytes (`Hasher`, seeded anew in every process, so no archive can aim at
/// a collision): for a million members a table of 2^21 buckets of 9 bytes, about 19 MB (computed), where the paths
/// themselves would take several times that. Two of a million names share a hash with a chance of about 3 in 10^8
/// (n^2 / 2^65); the second would then be reported as standing where the first does.
struct StagedNames {
    private enum Entry: UInt8 {
        /// Made as the parent of a member, not by a member of its own (a directory member adopts it).
        case parent
        case directory
        case file
        case symlink
    }

    private var entries: [UInt64: Entry] = [:]
    private let placesContainers: Bool
    /// The parent directory of the last member placed, whose components were all checked then (members come in
    /// walk order: most share it).
    private var lastParent: [UInt8]?

    init(placesContainers: Bool = true) {
        self.placesContainers = placesContainers
    }

    /// Records the member at `path` of `kind` (a hard link: `link(_:to:)`); the reason restore refuses it, or nil.
    mutating func place(_ path: MemberPath, kind: ArchiveReader.Kind) -> String? {
        guard counts(path) else { return nil }
        let key = Self.key(path.bytes[...])
        if kind == .directory, entries[key] == .directory { return "duplicate directory member" }
        if let problem = placeParents(of: path) { return problem }
        let what = kind == .directory ? "directory" : kind == .symlink ? "symlink" : "file"
        switch (entries[key], kind) {
        case (nil, _):
            entries[key] = kind == .directory ? .directory : kind == .symlink ? .symlink : .file
            return nil
        case (.parent, .directory):
            entries[key] = .directory
            return nil
        default:
            return Self.conflict(what)
        }
    }

    /// Records the hard link `path` to `target` (a valid member path, checked by `MemberRules`); the reason
    /// restore refuses it, or nil. Its target must be a regular file an earlier member made.
    mutating func link(_ path: MemberPath, to target: MemberPath) -> String? {
        guard counts(path) else { return nil }
        guard !target.isRoot else { return "hard link to the root" }
        for key in Self.prefixKeys(target.parent) {
            switch entries[key] {
            case .file, .symlink: return "hard link target '\(target.text)': \(Self.throughNonDirectory)"
            case nil: return "hard link target '\(target.text)' is not a file restored by an earlier member"
            case .parent, .directory: break
            }
        }
        switch entries[Self.key(target.bytes[...])] {
        case .file: break
        case .directory, .parent: return "hard link target '\(target.text)' is a directory, not a regular file"
        case .symlink: return "hard link target '\(target.text)' is a symlink, not a regular file"
        case nil: return "hard link target '\(target.text)' is not a file restored by an earlier member"
        }
        if let problem = placeParents(of: path) { return problem }
        let key = Self.key(path.bytes[...])
        guard entries[key] == nil else { return Self.conflict("hard link") }
        entries[key] = .file
        return nil
    }

    /// The reason restore's set-up refuses `directory` (relative to ROOT), which it makes if missing: a file or a
    /// symlink at it or on its way; or nil.
    func skeletonProblem(_ directory: [UInt8]) -> String? {
        let blocked = Self.prefixKeys(directory[...]).contains { entries[$0] == .file || entries[$0] == .symlink }
        return blocked ? Self.throughNonDirectory : nil
    }

    /// The directories restore's set-up makes in every staged tree (`RestoreSession.skeleton`).
    static let skeleton = RestoreSession.skeleton.map { Array($0.utf8) }

    // MARK: - Helpers

    private static let throughNonDirectory = "its path goes through a symlink or something that is not a directory"

    private static func conflict(_ what: String) -> String {
        "a \(what) at a path an earlier member already created (duplicate or conflicting member)"
    }

    /// Whether restore stages `path` where this verification keeps names (not the root entry, which keeps ROOT's
    /// own metadata; for a MobileSync backup, not below `Containers/`).
    private func counts(_ path: MemberPath) -> Bool {
        guard !path.isRoot else { return false }
        return placesContainers || !path.top.elementsEqual(Self.containers)
    }

    /// Makes the parents of `path` (as restore does, each a directory unless a member made it), or the reason
    /// restore refuses the member: one of them is a file or a symlink.
    private mutating func placeParents(of path: MemberPath) -> String? {
        let parent = path.parent
        if let lastParent, parent.elementsEqual(lastParent) { return nil }
        for key in Self.prefixKeys(parent) {
            switch entries[key] {
            case .file, .symlink: return Self.throughNonDirectory
            case nil: entries[key] = .parent
            case .parent, .directory: break
            }
        }
        lastParent = Array(parent)
        return nil
    }

    /// The keys of `directory`'s paths from its first component to the whole, in that order (`a`, `a/b`, `a/b/c`).
    private static func prefixKeys(_ directory: ArraySlice<UInt8>) -> [UInt64] {
        var keys: [UInt64] = []
        var end = directory.startIndex
        while end < directory.endIndex {
            end = directory[end...].firstIndex(of: 0x2F) ?? directory.endIndex
            keys.append(key(directory[..<end]))
            if end < directory.endIndex { end += 1 }
        }
        return keys
    }

    private static func key(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var hasher = Hasher()
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        hasher.combine(bytes.count)
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }

    private static let containers = Array("Containers".utf8)
}
