// BatchRecord: how one archive member is packed into a batch between the two threads.

/// The fixed part of a record. It is followed by the path (NUL-terminated), the link target
/// (NUL-terminated, links only), the encoded `user.*` attributes, then `dataLength` bytes of file data.
/// A file larger than the room left in a batch continues in `.data` records in the next batches. A file the
/// reading thread hashed (`readerHashed`) is followed, after its data, by a `.digest` record carrying the
/// 32-byte SHA-256 as its data.
struct BatchRecord {
    enum Kind: UInt8 {
        case directory = 1, file, symlink, hardlink, data, digest
    }

    static let readerHashed: UInt8 = 1

    var kind: UInt8
    /// `readerHashed` for a file whose digest follows in a `.digest` record.
    var flags: UInt8 = 0
    var pathLength: UInt32 = 0
    var linkLength: UInt32 = 0
    /// Bytes of encoded attributes: per attribute `[name length u32][value length u32][name NUL][value]`.
    var attributeBytes: UInt32 = 0
    /// File data following this record in the same batch.
    var dataLength: UInt32 = 0
    var mode: UInt32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
    var mtimeNanoseconds: UInt32 = 0
    var mtimeSeconds: Int64 = 0
    /// The member's size (whole file), for `.file`.
    var size: UInt64 = 0

    static let headerSize = MemoryLayout<BatchRecord>.stride
    static let dataLengthOffset = MemoryLayout<BatchRecord>.offset(of: \BatchRecord.dataLength)!

    /// Bytes the record takes before its data, rounded so data starts 8-byte aligned.
    var metadataSize: Int {
        let links = kind == Kind.symlink.rawValue || kind == Kind.hardlink.rawValue ? Int(linkLength) + 1 : 0
        let bare = kind == Kind.data.rawValue || kind == Kind.digest.rawValue
        let raw = Self.headerSize + (bare ? 0 : Int(pathLength) + 1) + links + Int(attributeBytes)
        return (raw + 7) & ~7
    }
}
