// TreeVisitor: what the tree walker reports, entry by entry, in archive order.
import SystemKit

/// One entry the walker reached. Pointers are valid only during the visitor call.
struct WalkEntry {
    /// The path relative to ROOT (no leading `./`).
    let path: PathBuffer
    /// The descriptor of the parent directory.
    let parent: Int32
    /// The entry's own name, NUL-terminated.
    let name: UnsafePointer<CChar>
    /// statx before anything was read.
    let status: FileStatus
    /// An open descriptor for regular files and directories (read-only), else -1.
    let descriptor: Int32
    /// ROOT as given, to name paths in messages.
    let root: String

    /// `ROOT/path`, for messages.
    var displayPath: String { root.hasSuffix("/") ? root + path.string : root + "/" + path.string }
}

/// Why the walker passes over an entry without it being excluded from backup.
enum WalkSkip: Sendable {
    /// A socket, FIFO or device node: tar has nothing to store for it.
    case special(FileKind)
    /// The name is not valid UTF-8, so the archive and manifest could not name it faithfully.
    case invalidName
    /// A file named like the manifest at the root would be confused with it.
    case reservedName
    /// The archive being written (it lies inside ROOT).
    case ownArchive
}

/// Receives the walk. Entries arrive depth first, a directory before its contents, names sorted bytewise.
/// An excluded directory is reported once and never entered.
protocol TreeVisitor: AnyObject {
    func excluded(_ entry: WalkEntry, reasons: ExclusionReasons) throws
    func directory(_ entry: WalkEntry, attributes: AttributeReader) throws
    func regularFile(_ entry: WalkEntry, attributes: AttributeReader) throws
    /// `target` is the link's target, NUL-terminated right after its bytes.
    func symlink(_ entry: WalkEntry, target: UnsafeBufferPointer<UInt8>) throws
    /// `path` is `ROOT/relative`.
    func skipped(path: String, reason: WalkSkip)
}
