// ArchiveReader+Member: one archive member's header, copied out of libarchive's entry.
import CArchive
import Glibc
import SystemKit

extension ArchiveReader {
    /// What a member is.
    public enum Kind: Equatable, Sendable {
        case regular, directory, symlink, hardLink
        case characterDevice, blockDevice, fifo, socket
        /// A file type libarchive reported that devicectl does not know (raw `S_IFMT` bits).
        case unknown(UInt32)

        /// A one-letter code as `ls -l` shows it (`h` for a hard link).
        public var letter: Character {
            switch self {
            case .regular: "-"
            case .directory: "d"
            case .symlink: "l"
            case .hardLink: "h"
            case .characterDevice: "c"
            case .blockDevice: "b"
            case .fifo: "p"
            case .socket: "s"
            case .unknown: "?"
            }
        }

        /// The word used in JSON output.
        public var name: String {
            switch self {
            case .regular: "file"
            case .directory: "directory"
            case .symlink: "symlink"
            case .hardLink: "hardlink"
            case .characterDevice: "character-device"
            case .blockDevice: "block-device"
            case .fifo: "fifo"
            case .socket: "socket"
            case .unknown: "unknown"
            }
        }
    }

    /// One member's header. Names are kept as raw bytes (what the syscalls get) and as text (for messages).
    public struct Member: Sendable {
        /// The name exactly as stored (no normalisation), without a trailing NUL.
        public var pathBytes: [UInt8]
        /// What the member is (a file, a directory, a link...).
        public var kind: Kind
        /// Permission bits including setuid, setgid and sticky.
        public var permissions: UInt32
        /// The data size libarchive reports (0 for directories, symlinks and ustar hard links).
        public var size: Int64
        /// The modification time: seconds since 1970 and the nanoseconds past them.
        public var mtimeSeconds: Int64
        /// See `mtimeSeconds`.
        public var mtimeNanoseconds: Int32
        /// Whether the header carries a modification time at all.
        public var hasMtime: Bool
        /// The numeric owner (the archive stores no user or group names).
        public var uid: Int64
        /// The numeric group.
        public var gid: Int64
        /// Symlink target or hard-link target, raw bytes.
        public var linkBytes: [UInt8]?
        /// Extended attributes in archive order (name, value).
        public var xattrs: [(name: String, value: [UInt8])]
        /// The member is a sparse file (its data comes with holes).
        public var isSparse: Bool

        /// The name as text (invalid UTF-8 shown with replacement characters).
        public var path: String { String(decoding: pathBytes, as: UTF8.self) }
        /// The link target as text.
        public var linkTarget: String? { linkBytes.map { String(decoding: $0, as: UTF8.self) } }

        /// A member described field by field (for a reader of another format, or a test).
        public init(
            pathBytes: [UInt8], kind: Kind, permissions: UInt32, size: Int64, mtimeSeconds: Int64,
            mtimeNanoseconds: Int32, hasMtime: Bool = true, uid: Int64, gid: Int64, linkBytes: [UInt8]? = nil,
            xattrs: [(name: String, value: [UInt8])] = [], isSparse: Bool = false
        ) {
            self.pathBytes = pathBytes
            self.kind = kind
            self.permissions = permissions
            self.size = size
            self.mtimeSeconds = mtimeSeconds
            self.mtimeNanoseconds = mtimeNanoseconds
            self.hasMtime = hasMtime
            self.uid = uid
            self.gid = gid
            self.linkBytes = linkBytes
            self.xattrs = xattrs
            self.isSparse = isSparse
        }

        init(_ entry: OpaquePointer) {
            pathBytes = ArchiveReader.bytes(archive_entry_pathname(entry)) ?? []
            permissions = UInt32(archive_entry_perm(entry)) & 0o7777
            size = archive_entry_size_is_set(entry) != 0 ? archive_entry_size(entry) : 0
            hasMtime = archive_entry_mtime_is_set(entry) != 0
            mtimeSeconds = hasMtime ? Int64(archive_entry_mtime(entry)) : 0
            mtimeNanoseconds = hasMtime ? Int32(truncatingIfNeeded: archive_entry_mtime_nsec(entry)) : 0
            uid = archive_entry_uid(entry)
            gid = archive_entry_gid(entry)
            isSparse = archive_entry_sparse_count(entry) > 0
            if let hardlink = ArchiveReader.bytes(archive_entry_hardlink(entry)) {
                kind = .hardLink
                linkBytes = hardlink
            } else {
                let type = UInt32(archive_entry_filetype(entry))
                switch FileKind(mode: type) {
                case .regular: kind = .regular
                case .directory: kind = .directory
                case .symlink: kind = .symlink
                case .characterDevice: kind = .characterDevice
                case .blockDevice: kind = .blockDevice
                case .fifo: kind = .fifo
                case .socket: kind = .socket
                case .unknown: kind = .unknown(type)
                }
                linkBytes = kind == .symlink ? ArchiveReader.bytes(archive_entry_symlink(entry)) ?? [] : nil
            }
            var attributes: [(name: String, value: [UInt8])] = []
            if archive_entry_xattr_reset(entry) > 0 {
                var name: UnsafePointer<CChar>?
                var value: UnsafeRawPointer?
                var length = 0
                while archive_entry_xattr_next(entry, &name, &value, &length) == ARCHIVE_OK {
                    guard let name else { continue }
                    let bytes = value.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
                    attributes.append((String(cString: name), bytes))
                }
            }
            xattrs = attributes
        }
    }

    /// The bytes of a C string, or nil for NULL.
    static func bytes(_ text: UnsafePointer<CChar>?) -> [UInt8]? {
        guard let text else { return nil }
        return Array(UnsafeRawBufferPointer(start: text, count: strlen(text)))
    }
}
