// VerifyReport: what `devicectl verify` found.
import TarKit

/// The outcome of reading an archive once against its manifest.
public struct VerifyReport: Sendable {
    public var members: UInt64 = 0
    /// The members read, by kind.
    public var counts = EntryCounts()
    /// The archive has a devicectl manifest.
    public var hasManifest = false
    /// The manifest's members line was present (metadata and the manifest itself were checked too).
    public var metadataChecked = false
    public var header: Manifest.Header?
    public var totals: Manifest.Totals?
    /// Every problem found (bad members, mismatches, damage), at most `problemLimit`.
    public var problems: [String] = []
    /// All problems, including those not kept.
    public var problemCount = 0
    public var format = ""
    public var filters: [String] = []
    public var archiveBytes: UInt64 = 0
    /// The signal (SIGINT, SIGTERM) that stopped the reading, if one did.
    public var interruptedBy: Int32?

    /// True when the archive has a manifest and nothing is wrong.
    public var isValid: Bool { hasManifest && problemCount == 0 }

    /// Records a reader error as a problem (and the signal, when it is an interruption).
    mutating func add(_ error: ArchiveReaderError, limit: Int) {
        if case .interrupted(let signal) = error { interruptedBy = signal }
        add("\(error)", limit: limit)
    }

    mutating func add(_ problem: String, limit: Int) {
        problemCount += 1
        if problems.count < limit { problems.append(problem) }
    }
}
