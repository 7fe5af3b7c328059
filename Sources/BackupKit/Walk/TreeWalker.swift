// TreeWalker: walks ROOT with openat/getdents64/statx, evaluates exclusions, and feeds a visitor.
import Glibc
import SystemKit

/// Walks a tree in archive order (depth first, a directory before its contents, names sorted
/// bytewise) with a handful of system calls per entry: `statx` by name, `openat`, one `flistxattr`
/// (values only for the exclusion attributes and `user.*`). An excluded directory is never entered.
/// Memory is one sorted name list per open directory level.
final class TreeWalker<Visitor: TreeVisitor> {
    private let root: String
    private let rules: ExclusionRules
    private let visitor: Visitor
    /// Files passed over by identity (device, inode), each with its reason: the archive being written and the
    /// one it replaces.
    private let ignored: [IgnoredFile]
    /// `--one-file-system`: directories on another device than ROOT's are stored but not entered.
    private let oneFileSystem: Bool
    /// ROOT's device, read when the walk starts.
    private var rootDevice: UInt64 = 0
    private let path = PathBuffer()
    private let attributes = AttributeReader()
    private let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
    private var linkTarget = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)

    private let manifestName = Array(Manifest.memberName.utf8)
    private let stagingPrefix = Array(StagingDirectory.prefix.utf8)

    init(
        root: String, rules: ExclusionRules, visitor: Visitor,
        ignoring ignored: [IgnoredFile] = [], oneFileSystem: Bool = false
    ) {
        self.root = root
        self.oneFileSystem = oneFileSystem
        self.rules = rules
        self.visitor = visitor
        self.ignored = ignored
    }

    deinit {
        scratch.deallocate()
        linkTarget.deallocate()
    }

    /// Walks the whole tree. Throws `BackupError` naming the path that failed.
    func run() throws {
        let opened = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard opened >= 0 else { throw BackupError.rootNotDirectory(root, SystemError("open", path: root)) }
        let directory = FileDescriptor(rawValue: opened, path: root)
        let fd = directory.rawValue
        if oneFileSystem {
            guard let status = Kernel.status(ofDescriptor: fd) else {
                throw BackupError.unreadable(path: root, SystemError("statx", path: root))
            }
            rootDevice = status.device
        }
        let listing: DirectoryListing
        do {
            listing = try DirectoryListing.read(directory: fd, path: self.root, scratch: scratch)
        } catch {
            throw BackupError.unreadable(path: root, error)
        }
        try walk(directory: fd, listing: listing, depth: 1)
    }

    private func walk(directory fd: Int32, listing: DirectoryListing, depth: Int) throws {
        for index in 0..<listing.count {
            let type = listing.entries[index].type
            try listing.withName(at: index) { name, cName in
                let saved = path.push(name)
                defer { path.pop(to: saved) }
                try visit(
                    parent: fd, name: name, cName: cName, type: type, depth: depth, basename: saved == 0 ? 0 : saved + 1)
            }
        }
    }

    // MARK: - One entry

    private static var fileFlags: Int32 { O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC }
    private static var directoryFlags: Int32 { O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC }

    private func visit(
        parent: Int32, name: UnsafeBufferPointer<UInt8>, cName: UnsafePointer<CChar>, type: UInt8, depth: Int,
        basename: Int
    ) throws {
        if depth == 1 && name.elementsEqual(manifestName) {
            visitor.skipped(path: display, reason: .reservedName)
            return
        }
        if depth == 1 && name.starts(with: stagingPrefix) {
            visitor.skipped(path: display, reason: .restoreStaging)
            return
        }
        if !Self.isUTF8(name) {
            visitor.skipped(path: display, reason: .invalidName)
            return
        }
        // The directory says what the entry is (d_type): open files and directories straight away and
        // statx the descriptor, which saves a path lookup. Anything unexpected takes the general path.
        // Owned for the entry's visit. Messages name the entry by `display`, so its path is empty (a literal:
        // nothing is built or allocated per entry); -1 while not open.
        var file = FileDescriptor(rawValue: -1, path: "")
        if type == UInt8(DT_REG) || type == UInt8(DT_DIR) {
            file = FileDescriptor(
                rawValue: openat(parent, cName, type == UInt8(DT_DIR) ? Self.directoryFlags : Self.fileFlags), path: "")
        }
        let statted =
            file.rawValue >= 0 ? Kernel.status(ofDescriptor: file.rawValue) : Kernel.status(of: cName, in: parent)
        guard let status = statted else {
            throw BackupError.unreadable(path: display, SystemError("statx", path: display))
        }
        if !ignored.isEmpty,
            let skip = ignored.first(where: { $0.device == status.device && $0.inode == status.inode })
        {
            visitor.skipped(path: display, reason: skip.reason)
            return
        }
        let pathReasons = rules.pathReasons(path: path.base, length: path.length, basename: basename)
        switch status.kind {
        case .regular, .directory:
            if file.rawValue < 0 {
                let fd = openat(parent, cName, status.kind == .directory ? Self.directoryFlags : Self.fileFlags)
                if fd < 0 {
                    let code = errno
                    return try visitUnopenable(
                        parent: parent, name: cName, status: status, pathReasons: pathReasons, code: code)
                }
                file = FileDescriptor(rawValue: fd, path: "")
            }
            let entry = WalkEntry(
                path: path, parent: parent, name: cName, status: status, descriptor: file.rawValue, root: root)
            if status.kind == .regular {
                if try visitFile(entry, pathReasons: pathReasons) { _ = file.take() }
            } else {
                try visitDirectory(entry, pathReasons: pathReasons, depth: depth)
            }
        case .symlink:
            let entry = WalkEntry(path: path, parent: parent, name: cName, status: status, descriptor: -1, root: root)
            let reasons = ExclusionRules.combine(status: status, attributes: [], cacheDirectoryTag: false, pathReasons: pathReasons)
            if !reasons.isEmpty { return try visitor.excluded(entry, reasons: reasons) }
            try visitor.symlink(entry, target: readLink(parent: parent, name: cName))
        default:
            let entry = WalkEntry(path: path, parent: parent, name: cName, status: status, descriptor: -1, root: root)
            let reasons = ExclusionRules.combine(status: status, attributes: [], cacheDirectoryTag: false, pathReasons: pathReasons)
            if !reasons.isEmpty { return try visitor.excluded(entry, reasons: reasons) }
            visitor.skipped(path: display, reason: .special(status.kind))
        }
    }

    /// True when the visitor took the file's descriptor.
    private func visitFile(_ entry: WalkEntry, pathReasons: ExclusionReasons) throws -> Bool {
        let reasons = try ownReasons(fd: entry.descriptor, status: entry.status, pathReasons: pathReasons)
        if !reasons.isEmpty {
            try visitor.excluded(entry, reasons: reasons)
            return false
        }
        return try visitor.regularFile(entry, attributes: attributes)
    }

    private func visitDirectory(_ entry: WalkEntry, pathReasons: ExclusionReasons, depth: Int) throws {
        let fd = entry.descriptor
        var reasons = try ownReasons(fd: fd, status: entry.status, pathReasons: pathReasons)
        if !reasons.isEmpty {
            // Already skipped: look for the tag directly (no listing) so every reason is reported.
            if CacheDirectoryTag.isPresent(in: fd) { reasons.insert(.cachedirTag) }
            return try visitor.excluded(entry, reasons: reasons)
        }
        if oneFileSystem && entry.status.device != rootDevice {
            // As GNU tar: the mount point is stored (an empty directory), what is mounted on it is not.
            try visitor.directory(entry, attributes: attributes)
            return visitor.skipped(path: display, reason: .otherFileSystem)
        }
        let listing: DirectoryListing
        do {
            listing = try DirectoryListing.read(directory: fd, path: self.display, scratch: scratch)
        } catch {
            throw BackupError.unreadable(path: display, error)
        }
        if listing.contains(CacheDirectoryTag.fileNameBytes) && CacheDirectoryTag.isPresent(in: fd) {
            return try visitor.excluded(entry, reasons: .cachedirTag)
        }
        try visitor.directory(entry, attributes: attributes)
        try walk(directory: fd, listing: listing, depth: depth + 1)
    }

    /// The exclusion reasons of an open file or directory (attributes, nodump, path rules).
    private func ownReasons(fd: Int32, status: FileStatus, pathReasons: ExclusionReasons) throws -> ExclusionReasons {
        do {
            try attributes.load(descriptor: fd, path: self.display)
            let fromAttributes = try honouredAttributeReasons()
            return ExclusionRules.combine(
                status: status, attributes: fromAttributes, cacheDirectoryTag: false, pathReasons: pathReasons)
        } catch {
            throw BackupError.unreadable(path: display, error)
        }
    }

    /// The loaded attributes' reasons that the engine honours at this path. Under the device's
    /// `Library/Preferences` the general ones are ignored and left out of the archived entry.
    private func honouredAttributeReasons() throws(SystemError) -> ExclusionReasons {
        let all = try attributes.exclusionReasons(path: self.display)
        guard !all.isEmpty else { return all }
        let ignoring = rules.ignoresGeneralAttributes(path: path.base, length: path.length)
        if ignoring && !all.isDisjoint(with: .generalAttributes) { attributes.omitsGeneralExclusion = true }
        return rules.honoured(all, ignoringGeneral: ignoring)
    }

    /// A file or directory that cannot be opened is fine when it is excluded anyway (its attributes
    /// are then read by path); otherwise the backup fails naming it.
    private func visitUnopenable(
        parent: Int32, name: UnsafePointer<CChar>, status: FileStatus, pathReasons: ExclusionReasons, code: Int32
    ) throws {
        let failure = SystemError("open", path: display, code: code)
        guard code != ENOENT else { throw BackupError.unreadable(path: display, failure) }
        var fromAttributes: ExclusionReasons = []
        if (try? attributes.load(path: display)) != nil {
            fromAttributes = (try? honouredAttributeReasons()) ?? []
        }
        let reasons = ExclusionRules.combine(
            status: status, attributes: fromAttributes, cacheDirectoryTag: false, pathReasons: pathReasons)
        guard !reasons.isEmpty else { throw BackupError.unreadable(path: display, failure) }
        let entry = WalkEntry(path: path, parent: parent, name: name, status: status, descriptor: -1, root: root)
        try visitor.excluded(entry, reasons: reasons)
    }

    /// The target of the symlink `name`, NUL-terminated after the returned bytes.
    private func readLink(parent: Int32, name: UnsafePointer<CChar>) throws -> UnsafeBufferPointer<UInt8> {
        while true {
            let n = readlinkat(parent, name, linkTarget.baseAddress!.assumingMemoryBound(to: CChar.self), linkTarget.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw BackupError.unreadable(path: display, SystemError("readlink", path: display))
            }
            if n < linkTarget.count {
                linkTarget[n] = 0
                return UnsafeBufferPointer(start: linkTarget.baseAddress!.assumingMemoryBound(to: UInt8.self), count: n)
            }
            let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: linkTarget.count * 2, alignment: 1)
            linkTarget.deallocate()
            linkTarget = bigger
        }
    }

    /// `ROOT/relative` of the current entry.
    private var display: String { WalkEntry.displayPath(root: root, path.string) }

    /// Whether `name` is valid UTF-8 (ASCII fast path).
    private static func isUTF8(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        if name.allSatisfy({ $0 < 0x80 }) { return true }
        return String(validating: name, as: UTF8.self) != nil
    }
}
