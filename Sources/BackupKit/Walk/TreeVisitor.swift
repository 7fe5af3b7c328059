// TreeVisitor: what the tree walker reports, entry by entry, in archive order.

/// Receives the walk. Entries arrive depth first, a directory before its contents, names sorted bytewise.
/// An excluded directory is reported once and never entered.
protocol TreeVisitor: AnyObject {
    func excluded(_ entry: WalkEntry, reasons: ExclusionReasons) throws
    func directory(_ entry: WalkEntry, attributes: AttributeReader) throws
    /// Returns true when the visitor took the entry's open descriptor (the walker then leaves it open).
    func regularFile(_ entry: WalkEntry, attributes: AttributeReader) throws -> Bool
    /// `target` is the link's target, NUL-terminated right after its bytes.
    func symlink(_ entry: WalkEntry, target: UnsafeBufferPointer<UInt8>) throws
    /// `path` is `ROOT/relative`.
    func skipped(path: String, reason: WalkSkip)
}
