// FileStatus: what statx(2) says about one path, without following a final symlink.
import CSupport
import Glibc

/// The kind of a file system object.
public enum FileKind: String, Sendable {
    case regular, directory, symlink, fifo, socket, characterDevice, blockDevice, unknown

    public init(mode: UInt32) {
        switch mode & UInt32(S_IFMT) {
        case UInt32(S_IFREG): self = .regular
        case UInt32(S_IFDIR): self = .directory
        case UInt32(S_IFLNK): self = .symlink
        case UInt32(S_IFIFO): self = .fifo
        case UInt32(S_IFSOCK): self = .socket
        case UInt32(S_IFCHR): self = .characterDevice
        case UInt32(S_IFBLK): self = .blockDevice
        default: self = .unknown
        }
    }
}

/// The status of one file, as `statx(2)` with `AT_SYMLINK_NOFOLLOW` reports it.
public struct FileStatus: Sendable, Equatable {
    public var mode: UInt32
    public var uid: UInt32
    public var gid: UInt32
    public var linkCount: UInt32
    public var inode: UInt64
    public var device: UInt64
    public var size: UInt64
    public var mtimeSeconds: Int64
    public var mtimeNanoseconds: UInt32
    /// The `nodump` inode flag (`chattr +d`), read by statx without opening the file.
    public var noDump: Bool
    /// The status change time (ctime): moves on every write and metadata change, and unlike mtime cannot be
    /// set back (`touch -d`, `utimensat`), so a file rewritten with its mtime restored still shows it.
    public var ctimeSeconds: Int64
    public var ctimeNanoseconds: UInt32
    /// 512-byte blocks allocated (`stx_blocks`; as many as the size needs when the file system does not say).
    public var blocks: UInt64

    public var kind: FileKind { FileKind(mode: mode) }
    /// Permission bits including setuid, setgid and sticky.
    public var permissions: UInt32 { mode & 0o7777 }
    /// Bytes allocated on disk (`du`): fewer than `size` for a file with holes (or a compressed one).
    public var allocatedBytes: UInt64 { blocks.multipliedReportingOverflow(by: 512).partialValue }

    /// `statx` of `path` relative to `directory` (or the working directory).
    public static func of(
        _ path: String, relativeTo directory: borrowing FileDescriptor? = nil, emptyPath: Bool = false,
        displayPath: String? = nil
    ) throws(SystemError) -> FileStatus {
        try of(path, descriptor: FileDescriptor.rawValue(of: directory), emptyPath: emptyPath, displayPath: displayPath)
    }

    /// `statx` of `path` relative to the raw directory descriptor `descriptor` (`AT_FDCWD`: the working directory).
    public static func of(
        _ path: String, descriptor: Int32, emptyPath: Bool = false, displayPath: String? = nil
    ) throws(SystemError) -> FileStatus {
        var raw = csupport_stat()
        let flags: Int32 = emptyPath ? CSUPPORT_AT_EMPTY_PATH : 0
        try SystemError.check("statx", path: displayPath ?? path) {
            csupport_statx(descriptor, path, flags, &raw)
        }
        return FileStatus(raw)
    }

    /// `statx` of `path`, or nil when it does not exist.
    public static func ifExists(_ path: String, relativeTo directory: borrowing FileDescriptor? = nil) throws(SystemError) -> FileStatus? {
        do {
            return try of(path, descriptor: FileDescriptor.rawValue(of: directory))
        } catch where error.code == ENOENT {
            return nil
        }
    }

    public init(_ raw: csupport_stat) {
        mode = raw.mode
        uid = raw.uid
        gid = raw.gid
        linkCount = raw.nlink
        inode = raw.ino
        device = raw.dev
        size = raw.size
        mtimeSeconds = raw.mtime_sec
        mtimeNanoseconds = raw.mtime_nsec
        noDump = raw.nodump != 0
        ctimeSeconds = raw.ctime_sec
        ctimeNanoseconds = raw.ctime_nsec
        blocks = raw.blocks
    }
}
