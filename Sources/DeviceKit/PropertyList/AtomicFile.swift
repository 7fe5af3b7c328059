// AtomicFile: replace a file's contents all at once (temporary file, fsync, rename, fsync directory).
import Glibc
import SystemKit

/// Whole-file writes that are never seen half-written.
public enum AtomicFile {
    /// Whether each write is flushed (the file, then its directory) before it returns. A restore turns it off
    /// while it reinstalls apps into its staging directory, which it flushes at once (syncfs) before moving
    /// it into place: thousands of flushes of files nobody can see yet made the reinstall five times slower.
    @TaskLocal public static var syncsEachWrite = true

    /// Writes `bytes` to `path` via a temporary file beside it; creates missing parent directories.
    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644) throws {
        let directory = parent(of: path)
        try makeDirectories(directory)
        let temporary = "\(directory)/.\(name(of: path)).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        do {
            let file = try FileDescriptor.open(temporary, flags: O_WRONLY | O_CREAT | O_EXCL, mode: mode)
            try file.write(bytes)
            if syncsEachWrite { try file.sync() }
            try file.close()
            try SystemError.check("rename", path: path) { rename(temporary, path) }
        } catch {
            unlink(temporary)
            throw error
        }
        if syncsEachWrite, let dir = try? FileDescriptor.open(directory, flags: O_RDONLY | O_DIRECTORY) {
            _ = fsync(dir.rawValue)
        }
    }

    /// `mkdir -p`.
    public static func makeDirectories(_ path: String, mode: mode_t = 0o755) throws {
        if path.isEmpty || path == "/" { return }
        if let status = try FileStatus.ifExists(path) {
            if status.kind == .directory { return }
            throw SystemError("mkdir", path: path, code: ENOTDIR)
        }
        try makeDirectories(parent(of: path), mode: mode)
        if mkdir(path, mode) != 0 && errno != EEXIST { throw SystemError("mkdir", path: path) }
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
