// ExtendedAttributes: get, set, list and remove extended attributes without following symlinks.
import CSupport
import Glibc

/// Extended attributes of one path (the `l*xattr` calls: a symlink's own attributes, never its target's).
public enum ExtendedAttributes {
    /// The value of `name` on `path`, or nil when the attribute is absent (or unsupported there).
    public static func value(_ name: String, at path: String) throws(SystemError) -> [UInt8]? {
        try value(name, at: path) { lgetxattr($0, $1, $2, $3) }
    }

    /// The value of `name` read with `get` (`lgetxattr` or `getxattr`), asking again when it grew in between.
    private static func value(
        _ name: String, at path: String,
        _ get: (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int
    ) throws(SystemError) -> [UInt8]? {
        while true {
            let size = get(path, name, nil, 0)
            if size < 0 {
                let code = errno
                if code == ENODATA || code == ENOTSUP { return nil }
                if code == EINTR { continue }
                throw SystemError("getxattr", path: path, code: code)
            }
            var buffer = [UInt8](repeating: 0, count: size)
            let got = buffer.withUnsafeMutableBytes { get(path, name, $0.baseAddress, size) }
            if got < 0 {
                let code = errno
                if code == ERANGE || code == EINTR { continue }  // grew in between: ask again
                if code == ENODATA { return nil }
                throw SystemError("getxattr", path: path, code: code)
            }
            return Array(buffer[0..<got])
        }
    }

    /// Sets `name` to `value` on `path`. Throws (ENOTSUP) on a file system without user xattrs.
    public static func set(_ name: String, to value: [UInt8], at path: String) throws(SystemError) {
        try SystemError.check("setxattr", path: path) {
            value.withUnsafeBytes { lsetxattr(path, name, $0.baseAddress, value.count, 0) }
        }
    }

    /// Removes `name` from `path`; absent is not an error.
    public static func remove(_ name: String, at path: String) throws(SystemError) {
        if lremovexattr(path, name) != 0 && errno != ENODATA {
            throw SystemError("removexattr", path: path)
        }
    }

    /// The names of every attribute on `path` that this process may read.
    public static func names(at path: String) throws(SystemError) -> [String] {
        while true {
            let size = llistxattr(path, nil, 0)
            if size < 0 {
                if errno == ENOTSUP { return [] }
                throw SystemError("listxattr", path: path)
            }
            if size == 0 { return [] }
            var buffer = [CChar](repeating: 0, count: size)
            let got = llistxattr(path, &buffer, size)
            if got < 0 {
                if errno == ERANGE { continue }
                throw SystemError("listxattr", path: path)
            }
            return buffer[0..<got].split(separator: 0).map { chars in
                String(decoding: chars.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
        }
    }
}

// MARK: - Through a descriptor

extension ExtendedAttributes {
    /// The path that reaches the file `file` refers to, whatever way it was opened (an `O_PATH` descriptor
    /// cannot take `f*xattr` calls; its `/proc/self/fd` entry can, and names exactly that file).
    private static func procPath(_ file: borrowing FileDescriptor) -> String { "/proc/self/fd/\(file.rawValue)" }

    /// The value of `name` on the open file, nil when absent (or unsupported there, or the file is a symlink).
    public static func value(_ name: String, of file: borrowing FileDescriptor) throws(SystemError) -> [UInt8]? {
        if try file.status().kind == .symlink { return nil }
        do {
            return try valueFollowing(name, at: procPath(file))
        } catch {
            throw SystemError(error.call, path: file.path, code: error.code)
        }
    }

    /// Sets `name` to `value` on the open file. A symlink fails with EPERM, as Linux refuses user xattrs there.
    public static func set(_ name: String, to value: [UInt8], on file: borrowing FileDescriptor) throws(SystemError) {
        if try file.status().kind == .symlink { throw SystemError("setxattr", path: file.path, code: EPERM) }
        let path = procPath(file)
        try SystemError.check("setxattr", path: file.path) {
            value.withUnsafeBytes { setxattr(path, name, $0.baseAddress, value.count, 0) }
        }
    }

    /// Removes `name` from the open file; absent is not an error.
    public static func remove(_ name: String, from file: borrowing FileDescriptor) throws(SystemError) {
        if try file.status().kind == .symlink { throw SystemError("removexattr", path: file.path, code: EPERM) }
        if removexattr(procPath(file), name) != 0 {
            let code = errno
            if code != ENODATA { throw SystemError("removexattr", path: file.path, code: code) }
        }
    }

    private static func valueFollowing(_ name: String, at path: String) throws(SystemError) -> [UInt8]? {
        try value(name, at: path) { getxattr($0, $1, $2, $3) }
    }
}
