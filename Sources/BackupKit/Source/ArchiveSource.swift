// ArchiveSource: opens the backup restore reads, with the source for its format.
import TarKit

/// Opens a backup with the source for its format, told from the path (`BackupLocation`): a tar stream
/// (`ArchiveReader`) or a MobileSync backup directory (`MobileSyncMemberReader`).
enum ArchiveSource {
    /// Opens `archive` (a path or `-`) with the reader's defaults, the manifest named as the metadata member;
    /// `password` is asked for only by an encrypted MobileSync backup.
    /// `onRead`: `ArchiveReader.Options.onRead`, for a tar.
    static func open(
        _ archive: String, limit: ExpansionLimit = .reading, password: () throws -> [UInt8]? = { nil },
        interruption: @escaping @Sendable () -> Int32?, onRead: (@Sendable () -> Void)? = nil
    ) throws -> any FormatSource {
        if case .mobileSync(let directory) = try BackupLocation.of(archive) {
            let source = try MobileSyncSource(path: directory, password: password)
            return try MobileSyncMemberReader(source: source, limit: limit, interruption: interruption)
        }
        var options = ArchiveReader.Options(metadataMember: Manifest.memberName)
        options.interruption = interruption
        options.onRead = onRead
        options.limit = limit
        // `--max-bytes` above the default raises the sparse cap with it (a sparse file's holes are file data too).
        options.maxSparseBytes = max(options.maxSparseBytes, limit.dataBytes == .max ? 0 : limit.dataBytes)
        return try ArchiveReader(path: archive, options: options)
    }
}
