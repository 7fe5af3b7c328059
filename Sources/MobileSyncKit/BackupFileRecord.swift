// BackupFileRecord: one Manifest.db row's `MBFile`, and its NSKeyedArchiver blob.

/// What a backup records of one file, directory or symlink (`Files.file`, an NSKeyedArchiver archive of an
/// `MBFile`; reference §2.2). Times are Unix epoch seconds.
public struct BackupFileRecord: Sendable, Equatable {
    /// The `flags` column: what the row is.
    public enum Kind: Int, Sendable {
        case file = 1, directory = 2, symlink = 4
    }

    public var kind: Kind
    public var relativePath: String
    /// The full `st_mode`, type bits included.
    public var mode: UInt32
    public var userID: UInt32
    public var groupID: UInt32
    public var inode: UInt64
    /// The plaintext length (0 for directories and symlinks).
    public var size: UInt64
    public var birth: Int64
    public var lastModified: Int64
    public var lastStatusChange: Int64
    /// The Data Protection class (files 1-4; directories and symlinks 0).
    public var protectionClass: Int
    /// A symlink's target: an absolute device path.
    public var target: String?
    /// Extended attributes by their iOS name (no `user.` prefix), in the order given.
    public var extendedAttributes: [(String, [UInt8])]
    /// Encrypted backups: the little-endian class and the wrapped file key (44 bytes).
    public var encryptionKey: [UInt8]?

    public init(
        kind: Kind, relativePath: String, mode: UInt32, userID: UInt32, groupID: UInt32, inode: UInt64, size: UInt64,
        birth: Int64, lastModified: Int64, lastStatusChange: Int64, protectionClass: Int, target: String? = nil,
        extendedAttributes: [(String, [UInt8])] = [], encryptionKey: [UInt8]? = nil
    ) {
        self.kind = kind
        self.relativePath = relativePath
        self.mode = mode
        self.userID = userID
        self.groupID = groupID
        self.inode = inode
        self.size = size
        self.birth = birth
        self.lastModified = lastModified
        self.lastStatusChange = lastStatusChange
        self.protectionClass = protectionClass
        self.target = target
        self.extendedAttributes = extendedAttributes
        self.encryptionKey = encryptionKey
    }

    public static func == (lhs: BackupFileRecord, rhs: BackupFileRecord) -> Bool {
        lhs.archived() == rhs.archived()
    }

    /// The keyed archive as devices write it: `$objects` = `$null`, the MBFile dictionary (the root, at index 1:
    /// three readers take `$objects[1]` without following `$top`), the path, then when present the target, the
    /// encryption key (an `NSMutableData` followed by its class) and the attributes (a binary plist), and last
    /// the MBFile class.
    public func archived() -> [UInt8] {
        KeyedRecordEncoder.encode(self)
    }
}
