// TemporaryDirectory: a scoped scratch directory for tests, always removed afterwards.
import Foundation

/// Runs `body` with a new empty directory (under $TMPDIR, or /tmp) and removes it afterwards.
public func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let path = try makeTemporaryDirectory()
    defer { removeTree(path) }
    return try body(path)
}

/// Async variant of `withTemporaryDirectory`.
public func withTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
    let path = try makeTemporaryDirectory()
    defer { removeTree(path) }
    return try await body(path)
}

/// Makes a new empty directory under $TMPDIR (or /tmp) and returns its path.
public func makeTemporaryDirectory() throws -> String {
    let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
    var template = Array("\(base)/devicectl-test.XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: base])
    }
    return String(cString: made)
}

/// Removes `path` recursively, clearing the immutable/append-only/nodump flags a test may have set.
public func removeTree(_ path: String) {
    _ = try? Shell.run("/bin/sh", ["-c", "chmod -R u+rwx \"$1\" 2>/dev/null; rm -rf \"$1\"", "sh", path])
}
