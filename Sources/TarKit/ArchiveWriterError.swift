// ArchiveWriterError: a libarchive write call failed, with archive_error_string.

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

    /// `call(entry): message`.
    public var description: String {
        entry.isEmpty ? "\(call): \(message)" : "\(call)(\(entry)): \(message)"
    }
}
