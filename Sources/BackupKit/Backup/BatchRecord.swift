// BatchRecord: how one archive member is packed into a batch between the two threads.

/// The fixed part of a record. It is followed by the path (NUL-terminated), the link target
/// (NUL-terminated, links only), the encoded `user.*` attributes, a sparse file's data regions (8-byte aligned),
/// then `dataLength` bytes of file data.
/// A file larger than the room left in a batch continues in `.data` records in the next batches. A file the
/// reading thread hashed (`readerHashed`) is followed, after its data, by a `.digest` record carrying the
/// 32-byte SHA-256 as its data.
/// A sparse file (`sparse`: its `.file` record carries `regionCount` regions, each offset and length as two `UInt64`)
/// comes as its data regions in order, each hole before, between or after them as a `.hole` record of `size` zero
/// bytes (no data), the data after a hole in `.data` records.
/// A file read after the walk (`deferred`: a large file of a MobileSync backup, `ArchivingVisitor`) has no data after
/// its `.file` record. Once every member is packed a `.membersComplete` record follows, then each such file's data in
/// the order of their members: a `.resume` record (`size`: the file's), then its `.data` records.
/// A file handed over (`handedOver`) has no data in the batch either: the writing thread reads it from the open
/// descriptor the batch carries (`Batch.carried`), when it reaches the record.
struct BatchRecord {
    enum Kind: UInt8 {
        case directory = 1, file, symlink, hardlink, data, digest, hole, membersComplete, resume
    }

    static let readerHashed: UInt8 = 1
    /// A file with holes: its data regions follow its attributes.
    static let sparse: UInt8 = 2
    /// A file with more than one name: a later `.hardlink` record may name it.
    static let linked: UInt8 = 4
    /// A file whose data comes after `.membersComplete`, at its `.resume` record.
    static let deferred: UInt8 = 8
    /// A file the writing thread reads itself, from the descriptor the batch carries (`carried`), with no data in
    /// the batch: see `ArchivingVisitor.handsOver`.
    static let handedOver: UInt8 = 16

    var kind: UInt8
    /// `readerHashed` for a file whose digest follows in a `.digest` record; `sparse`; `linked`; `deferred`.
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
    /// Data regions of a `sparse` file (none: the whole file is a hole).
    var regionCount: UInt32 = 0
    /// A `handedOver` file's index in its batch's `carried` files.
    var carried: UInt32 = 0
    var mtimeSeconds: Int64 = 0
    /// The member's size (whole file, holes included), for `.file` and `.resume`; the hole's length, for `.hole`.
    var size: UInt64 = 0

    static let headerSize = MemoryLayout<BatchRecord>.stride
    static let dataLengthOffset = MemoryLayout<BatchRecord>.offset(of: \BatchRecord.dataLength)!
    static let carriedOffset = MemoryLayout<BatchRecord>.offset(of: \BatchRecord.carried)!
    /// Bytes of one data region in a record: its offset and length.
    static let regionSize = 16

    /// Offset of the data regions from the record's start (8-byte aligned).
    var regionsOffset: Int {
        let links = kind == Kind.symlink.rawValue || kind == Kind.hardlink.rawValue ? Int(linkLength) + 1 : 0
        let bare = kind >= Kind.data.rawValue
        let raw = Self.headerSize + (bare ? 0 : Int(pathLength) + 1) + links + Int(attributeBytes)
        return (raw + 7) & ~7
    }

    /// Bytes the record takes before its data, rounded so data starts 8-byte aligned.
    var metadataSize: Int { regionsOffset + Int(regionCount) * Self.regionSize }
}
