// ArchiveVerification: `devicectl verify`: one read of the archive, every digest and the structure checked.
import SystemKit
import TarKit

/// Checks archives without extracting them.
public enum ArchiveVerification {
    /// Reads `archive` (a path or `-`) once (`VerifyPass`): hashes every file, checks each member by restore's
    /// rules (`MemberRules`: names, types, link targets, attributes; then the data rules), and compares everything
    /// with the manifest. Problems are collected, not thrown; a damaged or truncated stream ends the read with a
    /// problem saying where.
    /// An archive expanding beyond `limit` is refused at the member that crosses it (restore's check, with the
    /// budget a restore has onto ROOT). Throws only when the archive file cannot be opened (a damaged stream is
    /// a problem in the report).
    public static func verify(
        archive: String, problemLimit: Int = 1000, limit: ExpansionLimit = .reading,
        interruption: @escaping @Sendable () -> Int32? = { ProcessSignals.received },
        progress: ((ReadProgress) -> Void)? = nil
    ) throws -> VerifyReport {
        var report = VerifyReport()
        let reader: any FormatSource
        do {
            reader = try ArchiveSource.open(archive, limit: limit, interruption: interruption)
        } catch let error as ArchiveReaderError {
            report.add(error, limit: problemLimit)
            return report
        }
        defer { try? reader.close() }
        return try VerifyPass(
            reader: reader, problemLimit: problemLimit, interruption: interruption, progress: progress
        ).run()
    }
}
