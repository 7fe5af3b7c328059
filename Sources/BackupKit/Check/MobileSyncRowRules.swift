// MobileSyncRowRules: what a Manifest.db row must be before anything is done with it.
import MobileSyncKit

/// The checks every reader of a MobileSync backup (list, verify, and a restore to come) applies to each row,
/// hostile bytes being the rule: a domain is one non-empty name without `/`, NUL or control characters; a
/// relative path has no leading or trailing `/`, no empty, `.` or `..` component, no NUL, at most 4095 bytes and
/// 255 a component, 256 levels; flags are 1, 2 or 4; the fileID is the SHA-1 of the domain and path; the record
/// decodes (`KeyedArchiveReader`) and names the same path. Returns the record, or why the row is refused.
enum MobileSyncRowRules {
    static func check(_ row: ManifestDatabaseReader.Row) throws(PropertyListReadError) -> BackupFileRecord {
        guard !row.domain.isEmpty, row.domain.utf8.count <= 255,
            !row.domain.utf8.contains(where: { $0 == UInt8(ascii: "/") || $0 < 0x20 || $0 == 0x7F })
        else { throw PropertyListReadError("the domain is not a name") }
        try checkPath(row.relativePath)
        let kind: BackupFileRecord.Kind
        switch row.flags {
        case 1: kind = .file
        case 2: kind = .directory
        case 4: kind = .symlink
        default: throw PropertyListReadError("flags \(row.flags) (only 1, 2 and 4 are files, directories and links)")
        }
        guard row.fileID == FileID.of(domain: row.domain, relativePath: row.relativePath) else {
            throw PropertyListReadError("the fileID is not the SHA-1 of its domain and path")
        }
        let record = try KeyedArchiveReader.record(row.blob, kind: kind)
        guard record.relativePath == row.relativePath else {
            throw PropertyListReadError("the record names another path")
        }
        if kind == .symlink {
            guard let target = record.target, !target.isEmpty, target.utf8.count <= 4095, !target.utf8.contains(0) else {
                throw PropertyListReadError("a symbolic link without a usable target")
            }
        }
        return record
    }

    static func checkPath(_ path: String) throws(PropertyListReadError) {
        guard path.utf8.count <= 4095 else { throw PropertyListReadError("the path is over 4095 bytes") }
        guard !path.utf8.contains(0), !path.contains("\u{FFFD}") else {
            throw PropertyListReadError("the path holds a NUL or bytes that are not UTF-8")
        }
        guard !path.isEmpty else { return }
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        guard components.count <= 256 else { throw PropertyListReadError("the path is over 256 levels deep") }
        for component in components {
            guard !component.isEmpty, component != ".", component != ".." else {
                throw PropertyListReadError("the path has an empty, '.' or '..' component (or starts with '/')")
            }
            guard component.utf8.count <= 255 else { throw PropertyListReadError("a path component is over 255 bytes") }
        }
    }
}
