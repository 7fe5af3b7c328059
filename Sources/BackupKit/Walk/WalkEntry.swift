// WalkEntry: one entry the tree walker reached, as visitors see it.
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
    var displayPath: String { Self.displayPath(root: root, path.string) }

    /// ROOT/path, as messages name an entry (one slash between them whatever ROOT ends with).
    static func displayPath(root: String, _ path: String) -> String {
        root.hasSuffix("/") ? root + path : root + "/" + path
    }
}
