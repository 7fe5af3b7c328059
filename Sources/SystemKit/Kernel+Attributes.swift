// Kernel+Attributes: the extended-attribute calls (sys/xattr.h, which Glibc's module does not export).
import CSupport
import Glibc

extension Kernel {
    /// `flistxattr(2)`: the names of `descriptor`'s extended attributes. Returns the size, or -1 with errno set.
    public static func listAttributes(
        of descriptor: Int32, into buffer: UnsafeMutablePointer<CChar>?, size: Int
    ) -> Int {
        flistxattr(descriptor, buffer, size)
    }

    /// `llistxattr(2)` of `path` itself (a symlink's own). Returns the size, or -1 with errno set.
    public static func listAttributes(
        of path: UnsafePointer<CChar>, into buffer: UnsafeMutablePointer<CChar>?, size: Int
    ) -> Int {
        llistxattr(path, buffer, size)
    }

    /// `fgetxattr(2)`. Returns the value's size, or -1 with errno set.
    public static func attribute(
        _ name: UnsafePointer<CChar>, of descriptor: Int32, into value: UnsafeMutableRawPointer?, size: Int
    ) -> Int {
        fgetxattr(descriptor, name, value, size)
    }

    /// `lgetxattr(2)` of `path` itself. Returns the value's size, or -1 with errno set.
    public static func attribute(
        _ name: UnsafePointer<CChar>, of path: UnsafePointer<CChar>, into value: UnsafeMutableRawPointer?, size: Int
    ) -> Int {
        lgetxattr(path, name, value, size)
    }

    /// `fsetxattr(2)` with no flags (create or replace). Returns 0, or -1 with errno set.
    public static func setAttribute(
        _ name: UnsafePointer<CChar>, of descriptor: Int32, to value: UnsafeRawPointer?, size: Int
    ) -> Int32 {
        fsetxattr(descriptor, name, value, size, 0)
    }
}
