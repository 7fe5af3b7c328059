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
        // Ancestors up to the device root (exclusive) or the file-system root: the outermost skipped one wins,
        // since the walk stops there.
        var ancestor: ExclusionVerdict.Ancestor?
        var current = parent(of: absolute)
        while let directory = current, directory != deviceRoot {
            let found = try ownReasons(directory, rules: rules, deviceRoot: deviceRoot)
            if !found.isEmpty { ancestor = .init(path: directory, reasons: found.reasons) }
            current = parent(of: directory)
        }
        if ancestor != nil { reasons.insert(.excludedAncestor) }
        return ExclusionVerdict(
            path: path, absolutePath: absolute, reasons: reasons.reasons, ancestor: ancestor, deviceRoot: deviceRoot,
            engine: engine)
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
            let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if fd >= 0 {
                cacheTag = CacheDirectoryTag.isPresent(in: fd)
                close(fd)
            }
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
