// DryRunVisitor: walks exactly like a backup but reads no file data and writes nothing.
import SystemKit

/// Counts what a backup would store and reports every skipped path with all its reasons.
final class DryRunVisitor: TreeVisitor {
    private let report: (ExcludedPath) -> Void
    private let warn: (String) -> Void
    /// Receives each path a backup would store (`--dry-run -v`), in archive order.
    private let stored: ((StoredPath) -> Void)?
    private var hardLinks = HardLinkTable()
    private(set) var tally = BackupTally()
    private(set) var warnings = 0

    init(
        report: @escaping (ExcludedPath) -> Void, warn: @escaping (String) -> Void,
        stored: ((StoredPath) -> Void)? = nil
    ) {
        self.report = report
        self.warn = warn
        self.stored = stored
    }

    private func list(_ entry: WalkEntry) {
        if let stored { stored(StoredPath(path: entry.path.string, kind: entry.status.kind)) }
    }

    func excluded(_ entry: WalkEntry, reasons: ExclusionReasons) throws {
        let size = entry.status.kind == .regular ? entry.status.size : 0
        tally.exclude(reasons: reasons, bytes: size, directory: entry.status.kind == .directory)
        report(ExcludedPath(path: entry.path.string, reasons: reasons.reasons, kind: entry.status.kind, bytes: size))
    }

    func directory(_ entry: WalkEntry, attributes: AttributeReader) throws {
        list(entry)
        tally.counts.directories += 1
    }

    func regularFile(_ entry: WalkEntry, attributes: AttributeReader) throws -> Bool {
        let status = entry.status
        list(entry)
        if status.linkCount > 1, hardLinks.target(device: status.device, inode: status.inode) != nil {
            tally.counts.hardlinks += 1
            return false
        }
        hardLinks.remember(device: status.device, inode: status.inode, name: entry.path.cString, links: status.linkCount)
        tally.counts.files += 1
        tally.counts.bytes += status.size
        return false
    }

    func symlink(_ entry: WalkEntry, target: UnsafeBufferPointer<UInt8>) throws {
        list(entry)
        tally.counts.symlinks += 1
    }

    func skipped(path: String, reason: WalkSkip) {
        switch reason {
        case .ownArchive: return
        case .replacedArchive: warn("\(path): file is the archive; would not be dumped")
        case .otherFileSystem: warn("\(path): file is on a different file system; its contents would not be dumped")
        case .special(let kind): warn("would skip \(path): a \(ArchivingVisitor.kindName(kind)) cannot be stored in a tar archive")
        case .invalidName: warn("would skip \(path): its name is not valid UTF-8")
        case .reservedName: warn("would skip \(path): the name is reserved for the backup manifest")
        case .restoreStaging: warn("would skip \(path): a restore's staging directory (left by an interrupted restore)")
        }
        warnings += 1
    }
}
