// ExclusionCheck: `devicectl exclude check`: would a backup skip this path, and for which reasons?
import DeviceKit
import Glibc
import SystemKit

/// Evaluates arbitrary paths with the same rules the backup walker applies (`ExclusionRules`,
/// `AttributeReader`, `CacheDirectoryTag`), so `exclude check` and `backup` never disagree.
public enum ExclusionCheck {
    /// Checks `path` under `engine`'s rules. Throws `SystemError` (e.g. ENOENT naming the path) when it cannot
    /// be examined.
    public static func check(_ path: String, engine: AppleBackupEngine = .default) throws -> ExclusionVerdict {
        let absolute = try resolve(path)
        _ = try FileStatus.of(absolute)
        let deviceRoot = enclosingDeviceRoot(of: absolute)
        let rules = ExclusionRules(deviceRoot: deviceRoot != nil, engine: engine)
        if absolute == deviceRoot {
            return ExclusionVerdict(
                path: path, absolutePath: absolute, reasons: [], ancestor: nil, deviceRoot: deviceRoot, engine: engine)
        }
        var reasons = try ownReasons(absolute, rules: rules, deviceRoot: deviceRoot)
        let ancestor = try skippedAncestor(above: absolute, rules: rules, deviceRoot: deviceRoot)
        if ancestor != nil { reasons.insert(.excludedAncestor) }
        return ExclusionVerdict(
            path: path, absolutePath: absolute, reasons: reasons.reasons, ancestor: ancestor, deviceRoot: deviceRoot,
            engine: engine)
    }

    /// Checks a path given as the bytes the user typed, so a name that is not UTF-8 is checked too (Linux names
    /// are bytes). `display` shows a name in the verdict and in errors (the caller's escaping, e.g. tar's octal
    /// escapes). A UTF-8 path is checked as `check(_:)` checks it. Otherwise the last component is examined
    /// through its directory's descriptor; the directories above it must be UTF-8 (else `SystemError` EILSEQ).
    public static func check(
        bytes path: [UInt8], display: ([UInt8]) -> String, engine: AppleBackupEngine = .default
    ) throws -> ExclusionVerdict {
        if let text = String(validating: path, as: UTF8.self) { return try check(text, engine: engine) }
        let shown = display(path)
        var trimmed = path
        while trimmed.count > 1 && trimmed.last == UInt8(ascii: "/") { trimmed.removeLast() }
        let slash = trimmed.lastIndex(of: UInt8(ascii: "/"))
        let name = Array(slash.map { trimmed[($0 + 1)...] } ?? trimmed[...])
        let directoryBytes = slash.map { $0 == 0 ? [UInt8(ascii: "/")] : Array(trimmed[..<$0]) } ?? [UInt8(ascii: ".")]
        guard let directoryText = String(validating: directoryBytes, as: UTF8.self) else {
            throw SystemError("check", path: shown, code: EILSEQ)
        }
        let directory = try realPath(directoryText)
        let absolute = (directory == "/" ? "/" : directory + "/") + display(name)
        let parent = try FileDescriptor.open(directory, flags: Kernel.pathOnly | O_DIRECTORY)
        let status = try named(name) { cName in
            guard let status = Kernel.status(of: cName, in: parent.rawValue) else {
                throw SystemError("statx", path: shown)
            }
            return status
        }
        let deviceRoot = enclosingDeviceRoot(of: directory)
        let rules = ExclusionRules(deviceRoot: deviceRoot != nil, engine: engine)
        var fromAttributes: ExclusionReasons = []
        var cacheTag = false
        if status.kind == .regular || status.kind == .directory {
            let file = FileDescriptor(
                rawValue: try named(name) { cName in
                    try SystemError.check("open", path: shown) {
                        openat(parent.rawValue, cName, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC)
                    }
                }, path: shown)
            let fd = file.rawValue
            let attributes = AttributeReader()
            try attributes.load(descriptor: fd, path: shown)
            fromAttributes = try attributes.exclusionReasons(path: shown)
            if status.kind == .directory { cacheTag = CacheDirectoryTag.isPresent(in: fd) }
        }
        var pathReasons: ExclusionReasons = []
        var ignoringGeneral = false
        if let deviceRoot, directory == deviceRoot || directory.hasPrefix(deviceRoot + "/") {
            // Device rules name ASCII components (Library/Caches, tmp, DeviceLocal): the name's own bytes only
            // matter where it is one of them, and a name that is not UTF-8 never is.
            let inside = directory == deviceRoot ? "" : String(directory.dropFirst(deviceRoot.count + 1)) + "/"
            pathReasons = rules.pathReasons(inside + String(decoding: name, as: UTF8.self))
            ignoringGeneral = rules.ignoresGeneralAttributes(inside + String(decoding: name, as: UTF8.self))
        }
        fromAttributes = rules.honoured(fromAttributes, ignoringGeneral: ignoringGeneral)
        var reasons = ExclusionRules.combine(
            status: status, attributes: fromAttributes, cacheDirectoryTag: cacheTag, pathReasons: pathReasons)
        // `absolute` ends in the shown name, which holds no '/': its parent is `directory`.
        let ancestor = try skippedAncestor(above: absolute, rules: rules, deviceRoot: deviceRoot)
        if ancestor != nil { reasons.insert(.excludedAncestor) }
        return ExclusionVerdict(
            path: shown, absolutePath: absolute, reasons: reasons.reasons, ancestor: ancestor, deviceRoot: deviceRoot,
            engine: engine)
    }

    /// Runs `body` with `name` as a NUL-terminated C string.
    private static func named<T>(_ name: [UInt8], _ body: (UnsafePointer<CChar>) throws -> T) throws -> T {
        try (name + [0]).withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }

    /// The outermost skipped directory above `path`, up to the device root (exclusive) or the file-system root:
    /// the outermost wins, since the walk stops there.
    static func skippedAncestor(
        above path: String, rules: ExclusionRules, deviceRoot: String?
    ) throws -> ExclusionVerdict.Ancestor? {
        var ancestor: ExclusionVerdict.Ancestor?
        var current = parent(of: path)
        while let directory = current, directory != deviceRoot {
            let found = try ownReasons(directory, rules: rules, deviceRoot: deviceRoot)
            if !found.isEmpty { ancestor = .init(path: directory, reasons: found.reasons) }
            current = parent(of: directory)
        }
        return ancestor
    }

    /// The reasons `path` itself carries (not its ancestors').
    static func ownReasons(_ path: String, rules: ExclusionRules, deviceRoot: String?) throws -> ExclusionReasons {
        let status = try FileStatus.of(path)
        var fromAttributes: ExclusionReasons = []
        var cacheTag = false
        if status.kind == .regular || status.kind == .directory {
            let attributes = AttributeReader()
            try attributes.load(path: path)
            fromAttributes = try attributes.exclusionReasons(path: path)
        }
        var relative: String?
        if let deviceRoot, path.hasPrefix(deviceRoot + "/") { relative = String(path.dropFirst(deviceRoot.count + 1)) }
        fromAttributes = rules.honoured(
            fromAttributes, ignoringGeneral: relative.map { rules.ignoresGeneralAttributes($0) } ?? false)
        if status.kind == .directory {
            let directory = FileDescriptor(rawValue: open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), path: path)
            if directory.rawValue >= 0 { cacheTag = CacheDirectoryTag.isPresent(in: directory.rawValue) }
        }
        let pathReasons = relative.map { rules.pathReasons($0) } ?? []
        return ExclusionRules.combine(
            status: status, attributes: fromAttributes, cacheDirectoryTag: cacheTag, pathReasons: pathReasons)
    }

    /// The nearest directory at or above `path` holding a device identity.
    static func enclosingDeviceRoot(of path: String) -> String? {
        var current: String? = path
        while let directory = current {
            if Device.isDevice(at: directory) { return directory }
            current = parent(of: directory)
        }
        return nil
    }

    /// `path` made absolute with its parent directories resolved (symlinks, `.`, `..`); the last
    /// component is kept as it is, so a symlink is checked as the link a backup stores.
    static func resolve(_ path: String) throws -> String {
        var trimmed = path
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        let slash = trimmed.lastIndex(of: "/")
        let last = slash.map { String(trimmed[trimmed.index(after: $0)...]) } ?? trimmed
        if trimmed == "/" || last == "." || last == ".." || last.isEmpty {
            return try realPath(trimmed)
        }
        let directory = slash.map { $0 == trimmed.startIndex ? "/" : String(trimmed[..<$0]) } ?? "."
        let resolved = try realPath(directory)
        return resolved == "/" ? "/" + last : resolved + "/" + last
    }

    private static func realPath(_ path: String) throws -> String {
        guard let resolved = realpath(path, nil) else { throw SystemError("realpath", path: path) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The parent directory, or nil for `/`.
    static func parent(of path: String) -> String? {
        guard path != "/", let slash = path.lastIndex(of: "/") else { return nil }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
