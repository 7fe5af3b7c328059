// ExclusionPattern: one `--exclude GLOB`, matched with fnmatch(3) against the path relative to ROOT.
import Glibc

/// A shell glob from `--exclude`. A glob with a `/` is matched against the whole relative path
/// (`*` also matches `/`); a glob without one is matched against the whole path and against the
/// last component, so `*.log` skips `.log` files at any depth. A leading `./` and trailing `/` are ignored.
public struct ExclusionPattern: Sendable, Equatable {
    /// The glob as given.
    public let text: String
    private let glob: [CChar]
    private let matchesBasename: Bool

    public init(_ text: String) {
        self.text = text
        var body = Substring(text)
        while body.hasPrefix("./") { body = body.dropFirst(2) }
        while body.count > 1 && body.hasSuffix("/") { body = body.dropLast() }
        glob = Array(String(body).utf8CString)
        matchesBasename = !body.contains("/")
    }

    /// Whether the pattern matches `path` (NUL-terminated, relative to ROOT) whose last component
    /// starts at `basename`.
    func matches(path: UnsafePointer<CChar>, basename: UnsafePointer<CChar>) -> Bool {
        glob.withUnsafeBufferPointer { pattern in
            if fnmatch(pattern.baseAddress!, path, 0) == 0 { return true }
            return matchesBasename && basename != path && fnmatch(pattern.baseAddress!, basename, 0) == 0
        }
    }

    /// Whether the pattern matches the relative path `path`.
    public func matches(_ path: String) -> Bool {
        var bytes = Array(path.utf8CString)
        let slash = bytes.lastIndex(of: CChar(UInt8(ascii: "/"))).map { $0 + 1 } ?? 0
        return bytes.withUnsafeMutableBufferPointer { buffer in
            matches(path: buffer.baseAddress!, basename: buffer.baseAddress! + slash)
        }
    }
}
