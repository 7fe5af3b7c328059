// StagingTree: creates archive members inside the staging directory, contained by the kernel.
//
// Every object is created relative to a directory descriptor that was itself opened beneath the staging
// directory with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS), under a single-component
// name, with O_EXCL / O_NOFOLLOW (or mkdirat/symlinkat/linkat, which never follow a final symlink). So no
// name, symlink or race can make a write land outside the staging directory, and nothing is ever replaced.
import DeviceKit
import Glibc
import SystemKit
import TarKit

/// The tree being built in the staging directory.
final class StagingTree {
    /// A directory whose mode and mtime are set at the end (after its contents, which change its mtime).
    struct DeferredDirectory {
        let path: [UInt8]
        let depth: Int
        let permissions: mode_t
        let mtime: timespec?
    }

    /// The staging directory.
    let root: SharedDescriptor
    /// How members are shown in messages: relative names.
    private var cachedParentPath: ArraySlice<UInt8>?
    private var cachedParent: SharedDescriptor?
    /// Explicit directory members by path: a second one at the same path is a duplicate.
    private var explicitDirectories: Set<[UInt8]> = []
    private(set) var deferred: [DeferredDirectory] = []
    /// Symlinks created, judged once the tree is complete (`checkSymlinks`, `checkSymlinkChains`).
    let symlinks = SymlinkResolver(deviceLocal: Array(DeviceLayout.deviceLocal.utf8))
    /// Inodes created (files, directories, symlinks; hard links do not count).
    private(set) var objects: UInt64 = 0
    /// Fail when `objects` would exceed this.
    let objectLimit: UInt64

    private static let beneath: Kernel.Resolve = [.beneath, .noSymlinks, .noMagicLinks]

    init(root: SharedDescriptor, objectLimit: UInt64) {
        self.root = root
        self.objectLimit = objectLimit
    }

    // MARK: - Members

    /// Creates the regular file `path` (exclusively) and returns it open for writing.
    func createFile(_ path: MemberPath, permissions: mode_t) throws -> FileDescriptor {
        let parent = try prepareFile(path)
        let display = path.text
        let fd = try CName(path.name).withPointer {
            try StagingTree.openNewFile($0, in: parent.rawValue, permissions: permissions, display: display).take()
        }
        return FileDescriptor(rawValue: fd, path: display)
    }

    /// Everything about creating the file `path` but the `openat2` itself, which `openNewFile` may then do on
    /// another thread: the parent directory (made if missing, opened beneath the root), returned, and the object count.
    func prepareFile(_ path: MemberPath) throws -> SharedDescriptor {
        let parent = try parentDescriptor(of: path)
        try count()
        return parent
    }

    /// Creates `name` (one component) in the directory `parent` exclusively (never following or replacing anything)
    /// and opens it for writing; `display` names it in messages.
    static func openNewFile(
        _ name: UnsafePointer<CChar>, in parent: Int32, permissions: mode_t, display: String
    ) throws -> FileDescriptor {
        let fd = Kernel.openat2(
            parent, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: permissions,
            resolve: StagingTree.beneath)
        if fd < 0 { throw StagingTree.refusal(errno, nil, display: display, creating: "file") }
        return FileDescriptor(rawValue: fd, path: display)
    }

    /// Creates the directory `path`, or adopts it when an earlier member created it implicitly as a parent.
    /// Its mode and mtime are applied by `finishDirectories`.
    func createDirectory(_ path: MemberPath, permissions: mode_t, mtime: timespec?) throws {
        guard explicitDirectories.insert(path.bytes).inserted else {
            throw RestoreError.refusedMember(path.text, reason: "duplicate directory member")
        }
        let parent = try parentDirectory(of: path)
        let name = CName(path.name)
        if name.withPointer({ mkdirat(parent, $0, 0o700) }) != 0 {
            let code = errno
            guard code == EEXIST, try kind(of: name, in: parent, path: path) == .directory else {
                throw StagingTree.refusal(code, path, creating: "directory")
            }
        } else {
            try count()
        }
        deferred.append(DeferredDirectory(path: path.bytes, depth: path.depth, permissions: permissions, mtime: mtime))
    }

    /// Creates the symlink `path` -> `target` (the target was checked by the caller; it is never followed here).
    func createSymlink(_ path: MemberPath, target: [UInt8]) throws {
        let parent = try parentDirectory(of: path)
        try count()
        try symlinks.add(path, target: target)
        let name = CName(path.name)
        let destination = CName(target)
        let status = destination.withPointer { target in name.withPointer { symlinkat(target, parent, $0) } }
        if status != 0 { throw StagingTree.refusal(errno, path, creating: "symlink") }
    }

    /// Links `path` to the regular file `target`, which an earlier member must have created.
    func createHardLink(_ path: MemberPath, to target: MemberPath) throws {
        guard !target.isRoot else { throw RestoreError.refusedMember(path.text, reason: "hard link to the root") }
        var targetParent: FileDescriptor? = nil
        if !target.parent.isEmpty {
            do {
                targetParent = try openDirectory(target.parent, display: target.text, create: false)
            } catch RestoreError.refusedMember(_, let reason, let cause) {
                throw RestoreError.refusedMember(
                    path.text, reason: "hard link target '\(target.text)': \(reason)", cause: cause)
            } catch let error as SystemError where error.code == ENOENT {
                throw RestoreError.refusedMember(
                    path.text, reason: "hard link target '\(target.text)' is not a file restored by an earlier member")
            }
        }
        let targetDirectory = targetParent?.rawValue ?? root.rawValue
        let targetName = CName(target.name)
        let targetKind: FileKind?
        do {
            targetKind = try kind(of: targetName, in: targetDirectory, path: target)
        } catch let error as SystemError where error.code == ENOENT {
            targetKind = nil
        }
        guard targetKind == .regular else {
            let what =
                targetKind.map { "a \($0.rawValue), not a regular file" } ?? "not a file restored by an earlier member"
            throw RestoreError.refusedMember(path.text, reason: "hard link target '\(target.text)' is \(what)")
        }
        let parent = try parentDirectory(of: path)
        let name = CName(path.name)
        let status = targetName.withPointer { from in name.withPointer { linkat(targetDirectory, from, parent, $0, 0) }
        }
        if status != 0 { throw StagingTree.refusal(errno, path, creating: "hard link") }
    }

    // MARK: - Metadata

    /// Sets user extended attributes on an open file or directory.
    static func setXattrs(_ xattrs: [(name: String, value: [UInt8])], on fd: Int32, path: String) throws {
        for (name, value) in xattrs {
            try SystemError.check("fsetxattr \(name)", path: path) {
                value.withUnsafeBytes { Kernel.setAttribute(name, of: fd, to: $0.baseAddress, size: value.count) }
            }
        }
    }

    /// Sets ownership of `path` without following a symlink (only called as root).
    func changeOwner(_ path: MemberPath, uid: uid_t, gid: gid_t) throws {
        let parent = try parentDirectory(of: path)
        let name = CName(path.name)
        try SystemError.check("fchownat", path: path.text) {
            name.withPointer { fchownat(parent, $0, uid, gid, AT_SYMLINK_NOFOLLOW) }
        }
    }

    /// Sets the mtime of `path` itself (a symlink's own time), leaving atime.
    func setModificationTime(_ path: MemberPath, _ mtime: timespec) throws {
        let parent = try parentDirectory(of: path)
        let name = CName(path.name)
        try name.withPointer { try ModificationTime.set(mtime, name: $0, in: parent, path: path.text) }
    }

    /// Opens the directory `path` (read-only, for fsetxattr/fchmod).
    func openDirectory(_ path: MemberPath) throws -> FileDescriptor {
        try openDirectory(path.bytes[...], display: path.text, create: false, flags: O_RDONLY)
    }

    /// Makes sure the directory `relative` exists (creating missing components, never through a symlink).
    func ensureDirectory(_ relative: String) throws {
        _ = try openDirectory(Array(relative.utf8)[...], display: relative, create: true)
    }

    /// Applies the mode and mtime of every deferred directory below the top level, deepest first (after every
    /// write into the staged tree). Top-level directories keep the owner's rwx they were made with until
    /// `finishTopLevelDirectories`, after the move: moving a directory to a new parent needs write permission on
    /// it (its `..` changes), so one restored as 0500 could not be moved as a user other than root.
    func finishDirectories() throws {
        deferred.sort { $0.depth > $1.depth }
        for directory in deferred where directory.depth > 1 {
            let display = String(decoding: directory.path, as: UTF8.self)
            let fd = try openDirectory(directory.path[...], display: display, create: false, flags: O_RDONLY)
            try StagingTree.apply(directory, to: fd, display: display)
        }
        deferred.removeAll { $0.depth > 1 }
    }

    /// Applies the top-level directories' modes and mtimes in `root` (ROOT, once the staged tree is in place),
    /// opening each by its name beneath ROOT without following a symlink. The restore is complete by then, so
    /// a failure is returned as a message (naming the directory), not thrown.
    func finishTopLevelDirectories(in root: SharedDescriptor, rootPath: String) -> [String] {
        var failures: [String] = []
        for directory in deferred where directory.depth == 1 {
            let display = String(decoding: directory.path, as: UTF8.self)
            let name = CName(directory.path)
            let fd = name.withPointer {
                Kernel.openat2(root.rawValue, $0, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, resolve: StagingTree.beneath)
            }
            do {
                guard fd >= 0 else { throw SystemError("openat2", path: "\(rootPath)/\(display)") }
                try StagingTree.apply(
                    directory, to: FileDescriptor(rawValue: fd, path: display), display: "\(rootPath)/\(display)")
            } catch {
                failures.append("\(error)")
            }
        }
        deferred = []
        return failures
    }

    private static func apply(_ directory: DeferredDirectory, to fd: consuming FileDescriptor, display: String) throws {
        try SystemError.check("fchmod", path: display) { fchmod(fd.rawValue, directory.permissions) }
        if let mtime = directory.mtime {
            try ModificationTime.set(mtime, descriptor: fd.rawValue, path: display)
        }
        try fd.close()
    }

    /// Judges every symlink against ROOT's final layout by following it through the other restored links
    /// (`SymlinkResolver`): none may leave ROOT, reach `DeviceLocal/` or resolve to ROOT itself. Runs on the
    /// recorded links alone, before anything (the reinstall) follows a path through the staged tree.
    func checkSymlinks() throws {
        try symlinks.check()
    }

    /// Checks every symlink's full chain with the kernel, on the staged tree shaped as ROOT will be (run after
    /// the reinstall): `deviceLocal` is present meanwhile as a placeholder symlink to `/`, which
    /// RESOLVE_BENEATH refuses (EXDEV) like any way out, so a chain reaching it or leaving the staging directory
    /// fails, and so does one that ends at the staging directory itself (ROOT after the move). Dangling links
    /// and loops resolve nowhere, so they cannot lead outside. The placeholder is gone when this returns.
    func checkSymlinkChains(deviceLocal: [UInt8]) throws {
        let placeholder = CName(deviceLocal)
        guard placeholder.withPointer({ symlinkat("/", root.rawValue, $0) }) == 0 else {
            let code = errno
            throw code == EEXIST
                ? RestoreError.aborted("the staged tree has a \(placeholder.text) entry, which a restore never makes")
                : SystemError("symlinkat", path: placeholder.text, code: code)
        }
        defer { _ = placeholder.withPointer { unlinkat(root.rawValue, $0, 0) } }
        let top = try root.status()
        for link in symlinks.paths {
            let name = CName(link)
            let fd = name.withPointer {
                Kernel.openat2(root.rawValue, $0, Kernel.pathOnly | O_CLOEXEC, resolve: [.beneath, .noMagicLinks])
            }
            if fd >= 0 {
                let resolved = FileDescriptor(rawValue: fd, path: name.text)
                let status = try resolved.status()
                try resolved.close()
                if status.device == top.device && status.inode == top.inode {
                    throw RestoreError.refusedMember(name.text, reason: "symlink chain resolves to the restore root")
                }
            } else {
                let code = errno
                if code == EXDEV {
                    throw RestoreError.refusedMember(
                        name.text, reason: "symlink chain resolves outside the restore root or into \(placeholder.text)")
                }
                // A chain that ends at nothing (missing, through a file, too many links) is allowed; any other
                // failure (EAGAIN from renames that never stopped, EMFILE, ENOMEM) leaves the link unjudged.
                guard StagingTree.resolvesNowhere.contains(code) else {
                    throw SystemError("openat2", path: name.text, code: code)
                }
            }
        }
    }

    /// The errors of following a symlink chain that mean it leads to nothing (`checkSymlinkChains` allows it).
    static let resolvesNowhere: Set<Int32> = [ENOENT, ENOTDIR, ELOOP, ENAMETOOLONG]

    // MARK: - Directories

    /// The descriptor of `path`'s parent directory (creating missing components one at a time).
    private func parentDirectory(of path: MemberPath) throws -> Int32 {
        try parentDescriptor(of: path).rawValue
    }

    /// `parentDirectory(of:)` as a shared descriptor (kept open for as long as a queued operation holds it).
    private func parentDescriptor(of path: MemberPath) throws -> SharedDescriptor {
        let parent = path.parent
        if parent.isEmpty { return root }
        if let cachedParent, cachedParentPath == parent { return cachedParent }
        let fd = SharedDescriptor(try openDirectory(parent, display: path.text, create: true))
        cachedParent = fd
        cachedParentPath = parent
        return fd
    }

    /// Opens the directory `relative` beneath the root without following any symlink; when `create`, makes
    /// missing components one at a time with mkdirat relative to their (beneath-opened) parent.
    private func openDirectory(
        _ relative: ArraySlice<UInt8>, display: String, create: Bool, flags: Int32 = Kernel.pathOnly
    ) throws -> FileDescriptor {
        let open = { (directory: Int32, name: CName) -> Int32 in
            name.withPointer {
                Kernel.openat2(directory, $0, flags | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC, resolve: StagingTree.beneath)
            }
        }
        let whole = open(root.rawValue, CName(relative))
        if whole >= 0 { return FileDescriptor(rawValue: whole, path: display) }
        let code = errno
        guard code == ENOENT, create else { throw StagingTree.refusal(code, nil, display: display, creating: "directory") }
        var current: FileDescriptor? = nil
        for component in relative.split(separator: UInt8(ascii: "/")) {
            let directory = current?.rawValue ?? root.rawValue
            let name = CName(component)
            var fd = open(directory, name)
            if fd < 0 && errno == ENOENT {
                try count()
                if name.withPointer({ mkdirat(directory, $0, 0o755) }) != 0 && errno != EEXIST {
                    throw StagingTree.refusal(errno, nil, display: display, creating: "directory")
                }
                fd = open(directory, name)
            }
            if fd < 0 { throw StagingTree.refusal(errno, nil, display: display, creating: "directory") }
            current = FileDescriptor(rawValue: fd, path: display)
        }
        guard let current else {
            return try FileDescriptor(
                rawValue: SystemError.check("dup", path: display) { dup(root.rawValue) }, path: display)
        }
        return current
    }

    private func kind(of name: CName, in directory: Int32, path: MemberPath) throws -> FileKind {
        guard let status = name.withPointer({ Kernel.status(of: $0, in: directory) }) else {
            throw SystemError("statx", path: path.text)
        }
        return status.kind
    }

    private func count() throws {
        objects += 1
        if objects > objectLimit {
            throw RestoreError.noSpace(
                "the archive has more entries than ROOT's file system has free inodes (\(objectLimit))")
        }
    }

    /// Turns an errno from a create/open into a refusal naming the member (containment errors) or a SystemError.
    private static func refusal(
        _ code: Int32, _ path: MemberPath?, display: String? = nil, creating what: String
    ) -> any Error {
        let member = path?.text ?? display ?? "?"
        switch code {
        case EEXIST:
            return RestoreError.refusedMember(
                member,
                reason: "a \(what) at a path an earlier member already created (duplicate or conflicting member)")
        case ELOOP, ENOTDIR:
            return RestoreError.refusedMember(
                member, reason: "its path goes through a symlink or something that is not a directory")
        case EXDEV:
            return RestoreError.refusedMember(member, reason: "its path resolves outside the restore root")
        default:
            return SystemError("openat2", path: member, code: code)
        }
    }
}
