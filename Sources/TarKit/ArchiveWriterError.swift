// ArchiveWriterError: a libarchive write call failed, with archive_error_string.
import Glibc

/// libarchive refused a write. The description names the call, the entry (if any) and libarchive's message.
public struct ArchiveWriterError: Error, CustomStringConvertible, Sendable {
    /// The libarchive function, e.g. `archive_write_header`.
    public let call: String
    /// The archive member involved, or empty.
    public let entry: String
    /// `archive_error_string`, or a fallback when libarchive gave none.
    public let message: String

    /// A failure of libarchive's `call` while writing `entry` (empty when no entry is involved).
    public init(call: String, entry: String = "", message: String) {
        self.call = call
        self.entry = entry
        self.message = message
    }

    /// `strerror(code)` as a phrase inside a sentence (`File too large` -> `file too large`).
    public static func cause(_ code: Int32) -> String {
        let text = String(cString: strerror(code))
        return (text.first?.lowercased() ?? "") + text.dropFirst()
    }

    /// `call(entry): message` (for logs and tests; users read `BackupError`'s wording).
    public var description: String {
        entry.isEmpty ? "\(call): \(message)" : "\(call)(\(entry)): \(message)"
    }
}
