// ArchiveReaderError: why an archive could not be read (libarchive's message, the member, the cause).
import SystemKit

/// A failure reading an archive stream.
public enum ArchiveReaderError: Error, CustomStringConvertible, Equatable, Sendable {
    /// libarchive refused: `call` failed with `message` (from `archive_error_string`) at `member`, or, `afterMember`,
    /// in the header after it. The description names the member and libarchive's message, not the call (a name
    /// inside devicectl, which the payload keeps for a test or a report).
    case library(call: String, message: String, member: String?, afterMember: Bool = false)
    /// The stream is readable but not a tar archive (pax, ustar and GNU tar are accepted).
    case notTar(filters: String)
    /// The input is another archive format, recognised by its magic bytes (`zip`, `7z`, `RAR`, `cpio`, `xar`).
    case foreignFormat(String)
    /// The input was empty.
    case empty
    /// SIGINT or SIGTERM arrived while reading.
    case interrupted(signal: Int32)
    /// The uncompressed stream exceeded the limit (a decompression bomb, or not enough room).
    case streamTooLarge(limit: UInt64)
    /// Regular members declare more file data than the reader's `ExpansionLimit` (`total` bytes with `member`).
    case dataTooLarge(member: String, total: UInt64, limit: UInt64)
    /// Sparse members declare more logical bytes than `ArchiveReader.Options.maxSparseBytes` (a sparse bomb).
    case sparseTooLarge(member: String, limit: UInt64)
    /// The compressed stream is damaged at `offset` of the archive file (a checksum, data after its end, ...).
    case badCompression(filter: String, offset: UInt64, reason: String)
    /// More than one compression layer (outermost first): no backup tool writes that.
    case compressedTwice(filters: [String])
    /// The tar framing is damaged where libarchive does not look (non-zero padding, trailing garbage).
    case damaged(offset: UInt64, reason: String)

    /// The failure in words, naming the member when there is one.
    public var description: String {
        switch self {
        case .library(_, let message, let member, let afterMember):
            return message + (member.map { " (\(ArchiveReaderError.place(of: $0, after: afterMember)))" } ?? "")
        case .notTar(let filters):
            let decoded = filters.isEmpty ? "" : " (after \(filters) decompression)"
            return
                "not a tar archive\(decoded), or its first header is damaged; only pax, ustar and GNU tar are accepted"
        case .foreignFormat(let format):
            return "it is a \(format) archive, not a tar; devicectl reads pax, ustar and GNU tar archives, plain or "
                + "compressed (gzip, bzip2, xz, lzma, lzip, zstd, lz4, compress)"
        case .empty:
            return "the archive is empty (no tar header)"
        case .interrupted(let signal):
            return "interrupted by \(ProcessSignals.name(of: signal))"
        case .streamTooLarge(let limit):
            return "the archive expands beyond \(limit) bytes: refusing (decompression bomb or not enough space)"
        case .dataTooLarge(let member, let total, let limit):
            return "member '\(member)': the archive's files add up to \(total) bytes or more, beyond the limit of "
                + "\(limit) bytes: refusing (decompression bomb or not enough space)"
        case .sparseTooLarge(let member, let limit):
            return "sparse member '\(member)': the archive's sparse files add up to more than \(limit) bytes: "
                + "refusing (sparse bomb)"
        case .badCompression(let filter, let offset, let reason):
            return "damaged \(filter) compression at byte \(offset) of the archive: \(reason)"
        case .compressedTwice(let filters):
            return "the archive is compressed twice (\(filters.joined(separator: ", then "))): no backup tool writes "
                + "that; refusing (the shape of a decompression bomb)"
        case .damaged(let offset, let reason):
            return "damaged tar archive at byte \(offset) of the tar stream: \(reason)"
        }
    }

    /// Where in the archive a failure is: at a member, or in the header after it.
    static func place(of member: String, after: Bool) -> String {
        after ? "in the header after member '\(member)'" : "at member '\(member)'"
    }
}
