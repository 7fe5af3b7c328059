// RootPath: a ROOT argument resolved as the shell (the kernel) means it, never by rewriting the string.
import Glibc

/// Resolves a directory argument such as `b/../N` or `../x` to an absolute path the way the kernel would
/// walk it: the longest prefix that exists is resolved by `realpath(3)` (symlinks and `..` included), and the
/// components after it, which do not exist yet, are appended as given. A `.` or `..` among those components
/// names nothing (the kernel would fail with ENOENT), so it is refused instead of being folded away textually:
/// `URL.standardize` turns `b/../N` into `N` even when `b` does not exist, and `../x` into `x`.
public enum RootPath {
    /// The absolute path `argument` names. Throws `SystemError` (ENOENT) for an empty argument, or when a
    /// `.` or `..` follows a component that does not exist, and what `realpath` reports for the existing part
    /// (EACCES, ELOOP, ENOTDIR...).
    public static func resolve(_ argument: String) throws(SystemError) -> String {
        guard !argument.isEmpty else { throw SystemError("realpath", path: "''", code: ENOENT) }
        var components = argument.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let absolute = argument.hasPrefix("/")
        var missing: [String] = []
        while true {
            let prefix = (absolute ? "/" : "") + components.joined(separator: "/")
            let candidate = prefix.isEmpty ? "." : prefix
            if let resolved = realpath(candidate, nil) {
                defer { free(resolved) }
                var path = String(cString: resolved)
                for name in missing.reversed() {
                    if name == "." || name == ".." { throw SystemError("realpath", path: argument, code: ENOENT) }
                    path += path.hasSuffix("/") ? name : "/" + name
                }
                return path
            }
            let code = errno
            // Only a missing last component may be created; any other failure is the kernel's answer.
            guard code == ENOENT, let last = components.popLast() else {
                throw SystemError("realpath", path: argument, code: code)
            }
            missing.append(last)
        }
    }

    /// The parent directory of an absolute resolved path (`/` for `/x`).
    public static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last component of a path.
    public static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
