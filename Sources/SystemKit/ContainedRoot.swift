// ContainedRoot: the one way to touch a tree that others write (a device root, a restore's staging tree).
import CSupport
import Glibc

/// An open directory through which every path below it is resolved by the kernel with
/// `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS)`: no absolute path, no `..` above
/// the root, no symlink anywhere on the way, so whatever the files in the tree say, nothing outside it is ever
/// created, changed, read or followed. Paths given to it are relative to the root (`""` is the root itself);
/// `path` is the root's resolved absolute path, used only to name files in messages.
///
/// The descriptor is a read-only directory descriptor, closed when the last reference goes (closing a
/// directory opened for reading cannot lose data, so there is no throwing `close()`).
public final class ContainedRoot: Sendable {
    /// The root's absolute path, for messages.
    public let path: String
    /// The directory every call resolves beneath, owned: closed when the root goes.
    private let rootDirectory: FileDescriptor
    /// The raw directory descriptor, for `*at` calls (borrowed: the root keeps it open).
    public var descriptor: Int32 { rootDirectory.rawValue }
    /// Whether `writeAtomically` flushes each file and its directory before it returns (off for a tree that
    /// is flushed whole before anyone can see it, such as a restore's staging directory).
    public let syncsEachWrite: Bool

    /// Opens the existing directory at the absolute `path` (resolved by `RootPath.resolve`), refusing a
    /// symlink in its last component.
    public init(opening path: String) throws(SystemError) {
        let fd = try SystemError.check("open", path: path) {
            Glibc.open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        }
        self.path = path
        self.rootDirectory = FileDescriptor(rawValue: fd, path: path)
        self.syncsEachWrite = true
    }

    /// Takes ownership of an open directory (e.g. a staging directory made beneath another root).
    public init(adopting directory: consuming FileDescriptor, path: String, syncsEachWrite: Bool = true) {
        self.path = path
        self.rootDirectory = directory
        self.syncsEachWrite = syncsEachWrite
    }

    /// The absolute path of `relative`, for messages only: never hand it to a system call.
    public func display(_ relative: String) -> String {
        relative.isEmpty ? path : "\(path)/\(relative)"
    }

    // MARK: - Opening

    /// Opens `relative` beneath the root. `O_CLOEXEC` is always added; with `O_CREAT`, only the last
    /// component is created. A symlink anywhere on the way (the last component included) fails with ELOOP.
    public func open(_ relative: String, flags: Int32, mode: mode_t = 0o644) throws(SystemError) -> FileDescriptor {
        try open(bytes: Array(relative.utf8), flags: flags, mode: mode)
    }

    /// `open(_:flags:mode:)` for a path given as bytes (a name in the tree need not be UTF-8).
    public func open(bytes relative: [UInt8], flags: Int32, mode: mode_t = 0o644) throws(SystemError) -> FileDescriptor {
        let shown = display(String(decoding: relative, as: UTF8.self))
        let name = (relative.isEmpty ? Array(".".utf8) : relative) + [0]
        let resolve = CSUPPORT_RESOLVE_BENEATH | CSUPPORT_RESOLVE_NO_SYMLINKS | CSUPPORT_RESOLVE_NO_MAGICLINKS
        // openat2 refuses a mode without O_CREAT (EINVAL), unlike openat.
        let creates = flags & O_CREAT != 0 || flags & CSUPPORT_O_TMPFILE == CSUPPORT_O_TMPFILE
        let fd = try SystemError.check("openat2", path: shown) {
            name.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) {
                    csupport_openat2(
                        descriptor, $0.baseAddress!, UInt64(UInt32(bitPattern: flags | O_CLOEXEC)),
                        creates ? UInt64(mode) : 0, resolve)
                }
            }
        }
        return FileDescriptor(rawValue: fd, path: shown)
    }

    /// Opens `relative` as a regular file (created with `mode` under `O_CREAT`) without ever blocking: a FIFO,
    /// a device or a directory planted there fails (EINVAL, EISDIR) instead of waiting for a partner.
    public func openRegular(_ relative: String, flags: Int32, mode: mode_t = 0o644) throws(SystemError) -> FileDescriptor {
        let file = try open(relative, flags: flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, mode: mode)
        let kind = try file.status().kind
        guard kind == .regular else { throw SystemError("open", path: file.path, code: kind == .directory ? EISDIR : EINVAL) }
        return file
    }

    /// Opens the directory `relative` for listing, `*at` calls and fsync.
    public func openDirectory(_ relative: String) throws(SystemError) -> FileDescriptor {
        try open(relative, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
    }

    /// `openDirectory`, or nil when it fails with one of the codes `absent` (it, or a directory on the way, is missing).
    private func openDirectory(_ relative: String, absentWhen absent: [Int32]) throws(SystemError) -> FileDescriptor? {
        do {
            return try openDirectory(relative)
        } catch where absent.contains(error.code) {
            return nil
        }
    }

    /// `statx` of `relative` without following it; nil when it (or a directory on the way) does not exist.
    public func status(_ relative: String) throws(SystemError) -> FileStatus? {
        do {
            let file = try open(relative, flags: FileDescriptor.locateOnly)
            return try file.status()
        } catch where error.code == ENOENT || error.code == ENOTDIR {
            return nil
        }
    }

    // MARK: - Reading

    /// The whole regular file `relative`, refused before anything is read when it is larger than `limit`
    /// bytes (a hostile tree can hold a sparse file of any size); nil when it does not exist. A FIFO, a
    /// device or a directory there is refused (EINVAL/EISDIR) without blocking.
    public func read(_ relative: String, limit: Int) throws(SystemError) -> [UInt8]? {
        let file: FileDescriptor
        do {
            file = try openRegular(relative, flags: O_RDONLY)
        } catch where error.code == ENOENT {
            return nil
        } catch {
            throw SystemError("read", path: error.path, code: error.code)
        }
        let status = try file.status()
        guard status.size <= UInt64(limit) else { throw SystemError("read", path: file.path, code: EFBIG) }
        let bytes = try file.readAll(limit: limit)
        try file.close()
        return bytes
    }

    /// The names in directory `relative` (without `.` and `..`), sorted bytewise; nil when it does not exist.
    public func names(_ relative: String) throws(SystemError) -> [[UInt8]]? {
        guard let directory = try openDirectory(relative, absentWhen: [ENOENT, ENOTDIR]) else { return nil }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 32 * 1024, alignment: 8)
        defer { scratch.deallocate() }
        let listing = try DirectoryListing.read(directory: directory.rawValue, path: directory.path, scratch: scratch)
        return (0..<listing.count).map { listing.name(at: $0) }
    }

    // MARK: - Writing

    /// `mkdir -p` beneath the root: creates each missing directory of `relative` with `mode`; an existing
    /// non-directory (or symlink) on the way fails. Returns the deepest directory, open.
    @discardableResult
    public func makeDirectories(_ relative: String, mode: mode_t = 0o755) throws(SystemError) -> FileDescriptor {
        guard !relative.hasPrefix("/") else { throw SystemError("mkdirat", path: relative, code: EXDEV) }
        var current = try openDirectory("")
        var walked = ""
        for component in relative.split(separator: "/", omittingEmptySubsequences: true) {
            let name = String(component)
            walked = walked.isEmpty ? name : "\(walked)/\(name)"
            let made = name.withCString { mkdirat(current.rawValue, $0, mode) }
            if made != 0 && errno != EEXIST { throw SystemError("mkdirat", path: display(walked)) }
            current = try open(walked, flags: O_RDONLY | O_DIRECTORY | O_NOFOLLOW)
        }
        return current
    }

    /// Replaces `relative` with `bytes` all at once: a temporary file beside it (`O_EXCL`), fsync, `renameat`
    /// over the name (a symlink there is replaced, never followed), fsync of the directory. Missing parent
    /// directories are created.
    public func writeAtomically(_ bytes: [UInt8], to relative: String, mode: mode_t = 0o644) throws(SystemError) {
        let parent = RootPath.parent(of: relative)
        let name = RootPath.name(of: relative)
        let directory = try makeDirectories(parent == "." ? "" : parent)
        let temporary = ".\(name).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let shown = display(relative)
        do {
            let fd = try SystemError.check("openat", path: shown) {
                temporary.withCString {
                    openat(directory.rawValue, $0, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
                }
            }
            let file = FileDescriptor(rawValue: fd, path: shown)
            try file.write(bytes)
            if syncsEachWrite { try file.sync() }
            try file.close()
            try SystemError.check("renameat", path: shown) {
                temporary.withCString { from in name.withCString { renameat(directory.rawValue, from, directory.rawValue, $0) } }
            }
        } catch {
            _ = temporary.withCString { unlinkat(directory.rawValue, $0, 0) }
            throw error
        }
        if syncsEachWrite { _ = fsync(directory.rawValue) }
    }

    /// Removes the file or empty directory `relative`; absent is not an error.
    public func remove(_ relative: String) throws(SystemError) {
        let parent = RootPath.parent(of: relative)
        let name = RootPath.name(of: relative)
        guard let directory = try openDirectory(parent == "." ? "" : parent, absentWhen: [ENOENT]) else { return }
        let result = name.withCString { unlinkat(directory.rawValue, $0, 0) }
        if result == 0 { return }
        var code = errno
        if code == EISDIR {
            if name.withCString({ unlinkat(directory.rawValue, $0, AT_REMOVEDIR) }) == 0 { return }
            code = errno
        }
        if code != ENOENT { throw SystemError("unlinkat", path: display(relative), code: code) }
    }

    /// Removes `relative` and everything below it, through descriptors (a symlink is removed, never followed).
    public func removeTree(_ relative: String) throws(SystemError) {
        guard let status = try status(relative) else { return }
        if status.kind == .directory, let names = try names(relative) {
            for name in names {
                let child = String(decoding: name, as: UTF8.self)
                guard Array(child.utf8) == name else { throw SystemError("unlinkat", path: display(relative), code: EILSEQ) }
                try removeTree(relative.isEmpty ? child : "\(relative)/\(child)")
            }
        }
        try remove(relative)
    }

    // MARK: - Extended attributes

    /// The value of attribute `name` on `relative` (not following a symlink), nil when absent.
    public func attribute(_ name: String, of relative: String) throws(SystemError) -> [UInt8]? {
        let file = try open(relative, flags: FileDescriptor.locateOnly)
        return try ExtendedAttributes.value(name, of: file)
    }

    /// Sets attribute `name` on `relative`. A symlink on the way, or as `relative`, fails with ELOOP.
    public func setAttribute(_ name: String, to value: [UInt8], at relative: String) throws(SystemError) {
        let file = try open(relative, flags: FileDescriptor.locateOnly)
        try ExtendedAttributes.set(name, to: value, on: file)
    }

    /// Removes attribute `name` from `relative`; absent is not an error.
    public func removeAttribute(_ name: String, at relative: String) throws(SystemError) {
        let file = try open(relative, flags: FileDescriptor.locateOnly)
        try ExtendedAttributes.remove(name, from: file)
    }
}
