// MobileSyncListing: `devicectl list DIR` for a MobileSync backup: each row and what the plists say.
import Foundation
import MobileSyncKit
import PropertyListKit
import SystemKit

/// Lists a MobileSync backup's rows in (domain, path) order with restore's row checks: a row restore would refuse
/// fails the listing there, after the rows before it. Nothing in the backup is changed. An encrypted backup's
/// Manifest.db is decrypted (`password` is asked for then) into a private unnamed file. Throws
/// `MobileSyncReadError`.
public enum MobileSyncListing {
    public struct Entry: Sendable {
        public let domain: String
        public let path: String
        public let kind: BackupFileRecord.Kind
        public let mode: UInt32
        public let userID: UInt32
        public let groupID: UInt32
        public let size: UInt64
        public let modified: Date
        public let target: String?
    }

    public struct Summary: Sendable {
        public let info: BackupInfo
        /// Whether devicectl decrypted it (an encrypted backup; false for a copy another tool decrypted).
        public var decrypted = false
        /// The rows listed, by kind (a MobileSync backup has no hard links).
        public var counts = EntryCounts()
        public var domains: Set<String> = []
    }

    public static func list(
        path: String, password: () throws -> [UInt8]? = { nil },
        interruption: @escaping @Sendable () -> Int32? = { ProcessSignals.received },
        progress: ((ReadProgress) -> Void)? = nil, entry: (Entry) -> Void
    ) throws -> Summary {
        let source = try MobileSyncSource(path: path, password: password)
        var rows = try RowProgress(source, progress)
        var summary = Summary(info: source.info)
        summary.decrypted = source.classKeys != nil
        do {
            try source.forEachRow(
                entry: { row in
                    if let signal = interruption() { throw MobileSyncReadError.interrupted(signal: signal) }
                    defer { rows.row(files: summary.counts.files, bytes: summary.counts.bytes) }
                    let record = row.record
                    summary.domains.insert(row.domain)
                    switch record.kind {
                    case .file:
                        summary.counts.files += 1
                        summary.counts.bytes += record.size
                    case .directory: summary.counts.directories += 1
                    case .symlink: summary.counts.symlinks += 1
                    }
                    entry(Entry(
                        domain: row.domain, path: record.relativePath, kind: record.kind, mode: record.mode,
                        userID: record.userID, groupID: record.groupID, size: record.size,
                        modified: Date(timeIntervalSince1970: TimeInterval(record.lastModified)), target: record.target))
                },
                refused: { domain, path, reason in
                    throw MobileSyncReadError.refusedRow(
                        path: source.path, entry: MobileSyncVerification.display(domain, path), reason: reason.reason)
                })
        }
        return summary
    }
}
