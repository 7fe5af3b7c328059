// ArchiveListing: `devicectl list`: an archive's members and its manifest summary, read once.
import Foundation
import SystemKit
import TarKit

/// What `list` reports besides the members.
public struct ListSummary: Sendable {
    public var members: UInt64 = 0
    public var header: Manifest.Header?
    public var totals: Manifest.Totals?
    /// Why the manifest could not be read, when it could not.
    public var manifestProblem: String?
    public var format = ""
    public var filters: [String] = []
    public var archiveBytes: UInt64 = 0
}

/// Lists archives without extracting them.
public enum ArchiveListing {
    /// Calls `each` for every member in order (the manifest member too), then returns the manifest summary;
    /// `progress` gets the running counts after each batch of members, on the calling thread. The archive is read
    /// on a thread of its own (`ListReadAhead`), `each` called on the caller's.
    /// The manifest is read by restore's rules (`ManifestCheck`), so a manifest restore refuses is a problem here.
    /// Throws when the archive cannot be opened or is damaged (after listing what came before the damage), or
    /// expands beyond `limit` (restore's and verify's expansion check).
    public static func list(
        archive: String, limit: ExpansionLimit = .reading,
        interruption: @escaping @Sendable () -> Int32? = { ProcessSignals.received },
        progress: ((ReadProgress) -> Void)? = nil,
        each: (ArchiveReader.Member) throws -> Void
    ) throws -> ListSummary {
        let readAhead = try ListReadAhead(progress: progress != nil, interruption: interruption) {
            interruption, onRead in
            try ArchiveSource.open(archive, limit: limit, interruption: interruption, onRead: onRead)
        }
        var members: UInt64 = 0
        while let batch = readAhead.next() {
            do {
                for member in batch.members {
                    members += 1
                    try each(member)
                }
            } catch {
                readAhead.cancel()
                throw error
            }
            if let progress, let position = batch.progress { progress(position) }
            readAhead.recycle(batch)
        }
        var summary = try readAhead.finish()
        summary.members = members
        return summary
    }
}
