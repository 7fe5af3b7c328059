// CacheDirectoryTag: the Cache Directory Tagging Specification (https://bford.info/cachedir/).
import Glibc
import SystemKit

/// A directory is a cache when it holds a regular file `CACHEDIR.TAG` that begins with the signature.
public enum CacheDirectoryTag {
    /// The tag file's name.
    public static let fileName = "CACHEDIR.TAG"
    static let fileNameBytes = Array(fileName.utf8)
    /// The 43 bytes a valid tag starts with.
    public static let signature = Array("Signature: 8a477f597d28d172789f06886806bc55".utf8)

    /// Whether `prefix` (the tag file's first bytes) starts with the signature.
    public static func isValid(prefix: UnsafeRawBufferPointer) -> Bool {
        prefix.count >= signature.count && prefix.prefix(signature.count).elementsEqual(signature)
    }

    /// Whether the directory open at `directory` holds a valid tag. A missing, unreadable, non-regular
    /// (symlinks are not followed) or short tag file is not valid.
    public static func isPresent(in directory: Int32) -> Bool {
        let file = FileDescriptor(
            rawValue: openat(directory, fileName, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), path: fileName)
        guard file.rawValue >= 0 else { return false }
        let fd = file.rawValue
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return false }
        var buffer = [UInt8](repeating: 0, count: signature.count)
        var filled = 0
        while filled < buffer.count {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            filled += n
        }
        return buffer[0..<filled].withUnsafeBytes { isValid(prefix: $0) }
    }
}
