// TemporaryDirectory: a scoped scratch directory for tests, always removed afterwards.
import Foundation
import Glibc

/// Runs `body` with a new empty directory (under $TMPDIR, or /tmp; on /dev/shm when `inMemory`, see
/// `makeTemporaryDirectory`) and removes it afterwards.
public func withTemporaryDirectory<T>(inMemory: Bool = false, _ body: (String) throws -> T) throws -> T {
    let path = try makeTemporaryDirectory(inMemory: inMemory)
    defer { removeTree(path) }
    return try body(path)
}

/// Async variant of `withTemporaryDirectory`.
public func withTemporaryDirectory<T>(inMemory: Bool = false, _ body: (String) async throws -> T) async throws -> T {
    let path = try makeTemporaryDirectory(inMemory: inMemory)
    defer { removeTree(path) }
    return try await body(path)
}

/// Makes a new empty directory under $TMPDIR (or /tmp) and returns its path. `inMemory` puts it on /dev/shm
/// when that is writable (tmpfs: fast, no disk I/O, for tests that write large or many files).
public func makeTemporaryDirectory(inMemory: Bool = false) throws -> String {
    let temporary = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
    let base = inMemory && access("/dev/shm", W_OK) == 0 ? "/dev/shm" : temporary
    var template = Array("\(base)/devicectl-test.XXXXXX".utf8CString)
    // mkdtemp fills in the template; the path is read from it inside the closure that owns the buffer (the pointer
    // mkdtemp returns points into it and would dangle once `&template`'s call is over).
    let path = template.withUnsafeMutableBufferPointer { buffer -> String? in
        mkdtemp(buffer.baseAddress!) == nil ? nil : String(cString: buffer.baseAddress!)
    }
    guard let path else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: base]) }
    return path
}

/// Removes `path` recursively, clearing the immutable/append-only/nodump flags a test may have set.
public func removeTree(_ path: String) {
    _ = try? Shell.run("/bin/sh", ["-c", "chmod -R u+rwx \"$1\" 2>/dev/null; rm -rf \"$1\"", "sh", path])
}
