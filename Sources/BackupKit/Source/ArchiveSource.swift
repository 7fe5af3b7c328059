// ArchiveSource: opens the backup restore, verify or list reads, with the source for its format.
import TarKit

/// Opens a backup with the source for its format (today every backup is a tar stream: `ArchiveReader`).
enum ArchiveSource {
    /// Opens `archive` (a path or `-`) with the reader's defaults, the manifest named as the metadata member.
    static func open(
        _ archive: String, limit: ExpansionLimit = .reading, interruption: @escaping @Sendable () -> Int32?
    ) throws -> any FormatSource {
        var options = ArchiveReader.Options(metadataMember: Manifest.memberName)
        options.interruption = interruption
        options.limit = limit
        return try ArchiveReader(path: archive, options: options)
    }
}
