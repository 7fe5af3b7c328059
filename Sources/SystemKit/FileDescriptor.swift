// FileDescriptor: an owned POSIX file descriptor, closed exactly once.
import CSupport
import Glibc

/// Owns one open file descriptor (a noncopyable value: no allocation, one owner). `close()` reports errors;
/// `deinit` closes silently if still open; `take()` gives the descriptor up to a C API that closes it.
public struct FileDescriptor: ~Copyable, Sendable {
    /// The raw descriptor.
    public private(set) var rawValue: Int32
    /// The path this descriptor was opened at, for error messages.
    public let path: String

    /// `O_PATH | O_NOFOLLOW`: a descriptor that only locates the file itself (a symlink stays a symlink), for
    /// `statx` and extended attributes of any kind of file without opening its data.
    public static let locateOnly: Int32 = CSUPPORT_O_PATH | O_NOFOLLOW

    /// Takes ownership of `rawValue`.
    public init(rawValue: Int32, path: String) {
        self.rawValue = rawValue
        self.path = path
    }

    deinit {
        if rawValue >= 0 { Glibc.close(rawValue) }
    }

    /// Opens `path` relative to `directory` (or the working directory) with `openat(2)`.
    public static func open(
        _ path: String, relativeTo directory: borrowing FileDescriptor? = nil,
        flags: Int32, mode: mode_t = 0o644, displayPath: String? = nil
    ) throws(SystemError) -> FileDescriptor {
        let shown = displayPath ?? path
        let base = FileDescriptor.rawValue(of: directory)
        let fd = try SystemError.check("open", path: shown) {
            Glibc.openat(base, path, flags | O_CLOEXEC, mode)
        }
        return FileDescriptor(rawValue: fd, path: shown)
    }

    /// The raw descriptor of `directory`, or `AT_FDCWD` (the working directory) when there is none.
    static func rawValue(of directory: borrowing FileDescriptor?) -> Int32 {
        switch directory {
        case .some(let file): file.rawValue
        case .none: AT_FDCWD
        }
    }

    /// Closes the descriptor, reporting the error `close(2)` returns.
    public consuming func close() throws(SystemError) {
        let fd = rawValue
        rawValue = -1
        guard fd >= 0 else { return }
        if Glibc.close(fd) != 0 {
            let code = errno
            if code != EINTR { throw SystemError("close", path: path, code: code) }
        }
    }

    /// Gives up ownership: returns the raw descriptor, which the caller (or the C API it hands it to) closes.
    public consuming func take() -> Int32 {
        let fd = rawValue
        rawValue = -1
        return fd
    }

    /// Reads up to `count` bytes into `buffer`; returns 0 at end of file.
    public borrowing func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        try SystemError.check("read", path: path) { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Reads the whole file from the current offset; more than `limit` bytes fail with EFBIG (a file that
    /// grows while it is read cannot make the caller hold more than it allowed).
    public borrowing func readAll(limit: Int = Int.max) throws(SystemError) -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = try chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemError) -> Int in try read(into: buffer) }
            }.get()
            if n == 0 { return result }
            guard result.count + n <= limit else { throw SystemError("read", path: path, code: EFBIG) }
            result.append(contentsOf: chunk[0..<n])
        }
    }

    /// Writes all of `bytes`, retrying short writes.
    public borrowing func write(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        try Kernel.writeAll(rawValue, bytes, path: path)
    }

    /// Writes all of `bytes`.
    public borrowing func write(_ bytes: [UInt8]) throws(SystemError) {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(SystemError) in try write(buffer) }
        }.get()
    }

    /// Flushes the file's data and metadata to stable storage.
    public borrowing func sync() throws(SystemError) {
        try SystemError.check("fsync", path: path) { Glibc.fsync(rawValue) }
    }

    /// `statx` of the open file.
    public borrowing func status() throws(SystemError) -> FileStatus {
        try FileStatus.of("", descriptor: rawValue, emptyPath: true, displayPath: path)
    }
}
