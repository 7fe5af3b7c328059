// ArchiveReader+FormatSource: the pax/ustar/GNU tar reader (TarKit) as restore's, verify's and list's source.
import TarKit

extension ArchiveReader: FormatSource {
    /// In an archive with a manifest (a devicectl backup), pax keys libarchive does not know mean alteration.
    var alterationProblem: String? {
        let (keys, count) = unknownPaxKeys
        guard count > 0 else { return nil }
        return "\(count) pax header keys no backup writes (\(keys.joined(separator: ", "))): the archive was altered"
    }

    var restorePlan: RestorePlan? { nil }
    var carriesManifest: Bool { true }

    var progressPosition: (done: UInt64, total: UInt64?) { (inputBytes, inputSize) }
}
