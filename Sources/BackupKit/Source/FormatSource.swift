// FormatSource: a backup format read back, member by member: the first stage of restore, verify and list.
import TarKit

/// A backup read front to back: each member's header (`ArchiveReader.Member`), then its data in blocks.
/// Restore (`RestoreSession`), verify (`ArchiveVerification`) and list (`ArchiveListing`) read through this
/// protocol only, so a second format (a MobileSync directory, say) implements it beside the tar reader
/// (`ArchiveReader`, opened by `ArchiveSource`; `MobileSyncMemberReader` beside it) without touching staging, the member rules, the manifest check
/// or the journal.
/// Every byte is hostile: a source enforces `limit` (file data and expanded input) as it reads.
protocol FormatSource: AnyObject {
    /// The input's name for messages (`-` for standard input).
    var name: String { get }

    /// The next member's header, or nil after the last one (the source has checked the input's end).
    func next() throws -> ArchiveReader.Member?

    /// The next block of the current member's data, or nil at its end.
    func readBlock() throws -> ArchiveReader.DataBlock?

    /// Skips the rest of the current member's data.
    func skipData() throws

    /// The file data and expanded input accepted; a restore lowers it to ROOT's budget once known.
    var limit: ExpansionLimit { get set }

    /// Bytes read from the input so far (compressed).
    var inputBytes: UInt64 { get }

    /// How far the read is, for a progress display, in the format's own unit: a tar's input bytes of the archive
    /// file's size (no total from standard input or a pipe); a MobileSync backup's rows of Manifest.db's.
    var progressPosition: (done: UInt64, total: UInt64?) { get }

    /// A sign, beyond the members, that a devicectl backup was altered (for tar: pax keys no backup writes);
    /// judged after the last member of an archive that has a manifest.
    var alterationProblem: String? { get }

    /// The format's name and its compression filters, outermost first (for verify's report).
    var formatName: String { get }
    var filterNames: [String] { get }

    /// Whether the format can carry devicectl's manifest (tar), whose digests a restore checks after the last member.
    /// A restore of one that cannot (MobileSync) hashes no data: nothing would check the digests.
    var carriesManifest: Bool { get }

    /// For a format without devicectl's manifest that names containers by identifier (MobileSync): what the restore
    /// does after the last member (`RestorePlan`); nil for tar.
    var restorePlan: RestorePlan? { get }

    /// Releases the input.
    func close() throws
}
