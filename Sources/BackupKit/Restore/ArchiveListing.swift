// ArchiveListing: `devicectl list`: an archive's members and its manifest summary, read once.
import Foundation
import SystemKit

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
    /// Calls `each` for every member in order (the manifest member too), then returns the manifest summary.
    /// Throws when the archive cannot be opened or is damaged (after listing what came before the damage).
    public static func list(
        archive: String, interruption: @escaping @Sendable () -> Int32? = { InterruptSignal.received },
        each: (ArchiveReader.Member) throws -> Void
    ) throws -> ListSummary {
        var options = ArchiveReader.Options()
        options.interruption = interruption
        let reader = try ArchiveReader(path: archive, options: options)
        defer { try? reader.close() }
        var summary = ListSummary()
        while let member = try reader.next() {
            summary.members += 1
            try each(member)
            let isManifest =
                member.kind == .regular && (try? MemberPath(member.pathBytes))?.bytes == RestoreSession.manifestName
            guard isManifest, summary.header == nil else { continue }
            var splitter = LineSplitter(maxLine: ManifestCheck.maxLine)
            do {
                let collect = { (line: ArraySlice<UInt8>) throws in
                    switch try ManifestLine.parse(line) {
                    case .header(let header): summary.header = header
                    case .totals(let totals): summary.totals = totals
                    default: break
                    }
                }
                while let block = try reader.readBlock() { try splitter.feed(block.bytes, collect) }
                try splitter.finish(collect)
            } catch let error as ManifestLineError {
                summary.manifestProblem = "line \(splitter.lines): \(error)"
            } catch let error as RestoreError {
                summary.manifestProblem = "\(error)"
            }
        }
        summary.format = reader.formatName
        summary.filters = reader.filterNames
        summary.archiveBytes = reader.inputBytes
        return summary
    }
}
