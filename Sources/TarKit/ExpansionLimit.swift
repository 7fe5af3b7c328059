// ExpansionLimit: how far an archive may expand, one rule for restore, verify and list.
//
// A few kilobytes of compressed input can expand to terabytes (a decompression bomb), and reading them costs
// hours even when nothing is written. The reader checks the limit as it goes, before the data is read: the
// members' declared file data at each header, the uncompressed tar stream at each decoded block. Restore's
// budget is what ROOT's file system can take (or `RestoreOptions.maxBytes`); verify and list, which have no ROOT,
// use `reading`. The same check in the same place, so all three refuse a bomb at the same member.

/// The most file data, and so the most uncompressed tar stream, an archive reader accepts.
public struct ExpansionLimit: Sendable, Equatable, CustomStringConvertible {
    /// Bytes of file data in all: regular members' declared sizes (sparse ones at their logical size).
    public let dataBytes: UInt64

    /// A limit of `dataBytes` of file data.
    public init(dataBytes: UInt64) {
        self.dataBytes = dataBytes
    }

    /// A limit written as a byte count with an optional binary suffix: `1000000`, `512M`, `200G`, `2T` (K, M, G,
    /// T: powers of 1024); nil when it is not one (or does not fit in 64 bits).
    public init?(parsing text: String) {
        let shifts: [Character: UInt64] = ["K": 10, "M": 20, "G": 30, "T": 40]
        var digits = Substring(text)
        var shift: UInt64 = 0
        if let last = text.last, let value = shifts[Character(last.uppercased())] {
            shift = value
            digits = digits.dropLast()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), let count = UInt64(digits),
            count <= UInt64.max >> shift
        else { return nil }
        self.init(dataBytes: count << shift)
    }

    /// No limit (a reader for a trusted stream, e.g. tests of the reader itself).
    public static let unlimited = ExpansionLimit(dataBytes: .max)

    /// What verify and list accept: 64 GiB of file data, as much as the reader accepts in sparse members.
    public static let reading = ExpansionLimit(dataBytes: 1 << 36)

    /// The uncompressed tar stream allowed for the data: headers, pax records, padding and the end-of-archive
    /// mark come on top of it (a quarter more, and 256 MiB for archives of many small files).
    public var streamBytes: UInt64 {
        let (sum, overflow) = dataBytes.addingReportingOverflow(dataBytes / 4 + (256 << 20))
        return overflow ? .max : sum
    }

    /// The limit in words.
    public var description: String { "\(dataBytes) bytes of file data" }
}
