// StagedNames: the names a MobileSync restore stages at ROOT's top, kept by verify to see what restore's staging
// tree would refuse.
import TarKit

/// The paths the `/var/mobile` domains place under ROOT itself, by kind. Several domains share ROOT (HomeDomain,
/// MediaDomain, CameraRollDomain ...; HealthDomain its `Library`), so one domain's file can stand where another's
/// directory is, or in its way: restore's staging tree (`StagingTree`, the kernel's `O_EXCL` and `openat2`) refuses
/// such a member when it creates it, and verify, which creates nothing, finds it here with the same reasons. An app
/// domain's members go into a new container of their own (paths under `Containers/`) and are not kept: within one
/// domain, rows are unique and each one's parent is a directory row (checked on the rows).
struct StagedNames {
    private enum Entry {
        /// Made as the parent of a member, not by a member of its own (a directory member adopts it).
        case parent
        case directory
        case other
    }

    private var entries: [String: Entry] = [:]

    /// Records the member at `path` (relative to ROOT) of `kind`; the reason restore refuses it, or nil.
    mutating func place(_ path: String, kind: ArchiveReader.Kind) -> String? {
        if path == "Containers" || path.hasPrefix("Containers/") { return nil }
        var end = path.startIndex
        while let slash = path[end...].firstIndex(of: "/") {
            let parent = String(path[..<slash])
            switch entries[parent] {
            case .other: return "its path goes through a symlink or something that is not a directory"
            case nil: entries[parent] = .parent
            case .parent, .directory: break
            }
            end = path.index(after: slash)
        }
        let what = kind == .directory ? "directory" : kind == .symlink ? "symlink" : "file"
        switch (entries[path], kind) {
        case (nil, _):
            entries[path] = kind == .directory ? .directory : .other
            return nil
        case (.parent, .directory):
            entries[path] = .directory
            return nil
        case (.directory, .directory):
            return "duplicate directory member"
        default:
            return "a \(what) at a path an earlier member already created (duplicate or conflicting member)"
        }
    }
}
