// ExtendedAttributes: get, set, list and remove extended attributes without following symlinks.
import CSupport
import Glibc

/// Extended attributes of one path (the `l*xattr` calls: a symlink's own attributes, never its target's).
public enum ExtendedAttributes {
    /// The value of `name` on `path`, or nil when the attribute is absent (or unsupported there).
    public static func value(_ name: String, at path: String) throws(SystemError) -> [UInt8]? {
        while true {
            let size = lgetxattr(path, name, nil, 0)
            if size < 0 {
                let code = errno
                if code == ENODATA || code == ENOTSUP { return nil }
                if code == EINTR { continue }
                throw SystemError("getxattr", path: path, code: code)
            }
            var buffer = [UInt8](repeating: 0, count: size)
            let got = buffer.withUnsafeMutableBytes { lgetxattr(path, name, $0.baseAddress, size) }
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
