// ArchiveWriterError: writing the archive failed: the output, a compressor (libarchive) or a member the writer refused.
import Glibc

/// A write failed. The description names the call (a libarchive compressor's, `write`, `writeData`, `setDataRegions`),
/// the entry (if any) and the cause.
public struct ArchiveWriterError: Error, CustomStringConvertible, Sendable {
    /// The call that failed, e.g. `archive_write_data` (a compressor) or `write`.
    public let call: String
    /// The archive member involved, or empty.
    public let entry: String
    /// The cause: the output's error, `archive_error_string` for a compressor, or why a member was refused.
    public let message: String

    /// A failure of `call` while writing `entry` (empty when no entry is involved).
    public init(call: String, entry: String = "", message: String) {
        self.call = call
        self.entry = entry
        self.message = message
    }

    /// `call(entry): message` (for logs and tests; users read `BackupError`'s wording).
    public var description: String {
        entry.isEmpty ? "\(call): \(message)" : "\(call)(\(entry)): \(message)"
    }
}
