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
    /// `progress` gets the running counts after each member, on the calling thread.
    /// The manifest is read by restore's rules (`ManifestCheck`), so a manifest restore refuses is a problem here.
    /// Throws when the archive cannot be opened or is damaged (after listing what came before the damage), or
    /// expands beyond `limit` (restore's and verify's expansion check).
    public static func list(
        archive: String, limit: ExpansionLimit = .reading,
        interruption: @escaping @Sendable () -> Int32? = { ProcessSignals.received },
        progress: ((ReadProgress) -> Void)? = nil,
        each: (ArchiveReader.Member) throws -> Void
    ) throws -> ListSummary {
        let reader = try ArchiveSource.open(archive, limit: limit, interruption: interruption)
        defer { try? reader.close() }
        var summary = ListSummary()
        let started = RestoreSession.monotonicSeconds()
        var files: UInt64 = 0
        var bytes: UInt64 = 0
        while let member = try reader.next() {
            summary.members += 1
            try each(member)
            if let progress {
                if member.kind == .regular {
                    files += 1
                    bytes &+= UInt64(max(0, member.size))
                }
                progress(
                    ReadProgress(files: files, bytes: bytes, of: reader, since: started))
            }
            let isManifest =
                member.kind == .regular && (try? MemberPath(member.pathBytes))?.bytes == RestoreSession.manifestName
            guard isManifest, summary.header == nil else { continue }
            let check = try ManifestCheck(problemLimit: 1)
            do {
                while let block = try reader.readBlock() { try check.feed(block.bytes) }
                let outcome = try check.finish()
                summary.header = outcome.header
                summary.totals = outcome.totals
                summary.manifestProblem = outcome.problems.first
            } catch RestoreError.badManifest(let problem) {
                summary.manifestProblem = problem.description
                try reader.skipData()
            } catch let error as RestoreError {
                summary.manifestProblem = error.message
                try reader.skipData()
            }
        }
        summary.format = reader.formatName
        summary.filters = reader.filterNames
        summary.archiveBytes = reader.inputBytes
        return summary
    }
}
