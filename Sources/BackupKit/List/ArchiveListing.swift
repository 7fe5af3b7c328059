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
        var manifest = ManifestReading()
        while let batch = readAhead.next() {
            do {
                for member in batch.members {
                    members += 1
                    try each(member)
                }
                try manifest.take(batch)
            } catch {
                readAhead.cancel()
                throw error
            }
            if let progress, let position = batch.progress { progress(position) }
            readAhead.recycle(batch)
        }
        var summary = try readAhead.finish()
        summary.members = members
        try manifest.finish(digest: readAhead.manifestDigest, into: &summary)
        return summary
    }

    /// The manifest's lines as the batches bring them, checked by restore's rules on the caller's thread (their
    /// digest comes from the reading thread).
    private struct ManifestReading {
        private var check: ManifestCheck?
        /// The check refused the manifest: the rest of its data is passed over.
        private var problem: String?

        mutating func take(_ batch: ListReadAhead.Batch) throws {
            if batch.manifestStarts { check = try ManifestCheck(problemLimit: 1, digestSupplied: true) }
            guard let check, problem == nil, !batch.manifest.isEmpty else { return }
            do {
                try batch.manifest.withUnsafeBytes { try check.feed($0) }
            } catch {
                try refuse(error)
            }
        }

        /// The header, totals and first problem into `summary`, when the archive had a manifest; `digest`: of its
        /// bytes before the last line.
        mutating func finish(digest: String?, into summary: inout ListSummary) throws {
            guard let check else { return }
            if problem == nil {
                do {
                    let result = try check.finish(manifestDigest: digest)
                    summary.header = result.header
                    summary.totals = result.totals
                    summary.manifestProblem = result.problems.first
                    return
                } catch {
                    try refuse(error)
                }
            }
            summary.manifestProblem = problem
        }

        /// A manifest restore refuses is the listing's problem; any other failure is the listing's.
        private mutating func refuse(_ error: any Error) throws {
            switch error {
            case RestoreError.badManifest(let refusal): problem = refusal.description
            case let error as RestoreError: problem = error.message
            default: throw error
            }
        }
    }
}
