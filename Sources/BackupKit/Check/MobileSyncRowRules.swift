// MobileSyncRowRules: what a Manifest.db row must be before anything is done with it.
import MobileSyncKit
import PropertyListKit

/// The checks every reader of a MobileSync backup (list, verify, and a restore to come) applies to each row,
/// hostile bytes being the rule: a domain is one non-empty name without `/`, NUL or control characters; a
/// relative path has no leading or trailing `/`, no empty, `.` or `..` component, no NUL, at most 4095 bytes and
/// 255 a component, 256 levels; flags are 1, 2 or 4; the fileID is the SHA-1 of the domain and path; the record
/// decodes (`KeyedArchiveReader`) and names the same path, its extended attributes' names are names (no NUL).
/// Returns the record, or why the row is refused.
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
        let record: BackupFileRecord
        do {
            record = try KeyedArchiveReader.record(row.blob, kind: kind)
        } catch {
            throw PropertyListReadError("its record in Manifest.db is damaged: \(error.reason)")
        }
        guard record.relativePath == row.relativePath else {
            throw PropertyListReadError("the record names another path")
        }
        for (name, _) in record.extendedAttributes where name.isEmpty || name.utf8.contains(0) {
            throw PropertyListReadError("an extended attribute's name is empty or holds a NUL")
        }
        if kind == .symlink {
            guard let target = record.target, !target.isEmpty, target.utf8.count <= 4095, !target.utf8.contains(0) else {
                throw PropertyListReadError("a symbolic link without a usable target")
            }
        }
        return record
    }

    static func checkPath(_ path: String) throws(PropertyListReadError) {
        var path = path
        // One pass over the bytes, no component made: every row of a backup comes through here.
        let problem: String? = path.withUTF8 { bytes in
            guard bytes.count <= 4095 else { return "the path is over 4095 bytes" }
            var levels = 1
            var start = 0
            for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/")
                || bytes[index] == 0 || bytes[index] == 0xEF
            {
                if index < bytes.count, bytes[index] == 0 { return "the path holds a NUL or bytes that are not UTF-8" }
                if index < bytes.count, bytes[index] == 0xEF {
                    // U+FFFD: bytes that were not UTF-8, replaced when the row was read.
                    if index + 2 < bytes.count, bytes[index + 1] == 0xBF, bytes[index + 2] == 0xBD {
                        return "the path holds a NUL or bytes that are not UTF-8"
                    }
                    continue
                }
                if bytes.isEmpty { return nil }
                let length = index - start
                let dot = UInt8(ascii: ".")
                if length == 0 || (length == 1 && bytes[start] == dot)
                    || (length == 2 && bytes[start] == dot && bytes[start + 1] == dot)
                {
                    return "the path has an empty, '.' or '..' component (or starts with '/')"
                }
                if length > 255 { return "a path component is over 255 bytes" }
                if index < bytes.count {
                    levels += 1
                    if levels > 256 { return "the path is over 256 levels deep" }
                }
                start = index + 1
            }
            return nil
        }
        if let problem { throw PropertyListReadError(problem) }
    }
}
