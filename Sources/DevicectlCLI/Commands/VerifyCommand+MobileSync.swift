// VerifyCommand+MobileSync: `devicectl verify DIR` for a MobileSync backup.
import BackupKit
import MobileSyncKit
import Foundation

extension VerifyCommand {
    static func verifyMobileSync(
        _ backup: String, archive: String, _ arguments: ParsedArguments, _ context: CommandContext
    ) throws -> Int32 {
        // The progress line's share is of Manifest.db's rows.
        let bar = ProgressBar(console: context.console, enabled: context.showsProgress(arguments), label: "verifying")
        let report: MobileSyncVerification.Report
        do {
            report = try MobileSyncVerification.verify(
                path: backup,
                password: PasswordSource.forReading(arguments, environment: context.environment, command: spec.name),
                progress: { bar.update($0) })
            bar.finish()
        } catch {
            bar.finish()
            throw error
        }
        let status = report.interruptedBy.map { 128 + $0 } ?? (report.isValid ? 0 : 1)
        let failed = "\(archive) failed verification (\(report.problemCount) problem\(report.problemCount == 1 ? "" : "s"))"
        if arguments.flag("--json") {
            for warning in report.warnings { context.console.warn(warning) }
            context.console.result(MobileSyncResult(report, archive: archive, backup: backup))
            if status != 0 { context.console.failure(failed, exitStatus: status, path: archive) }
            return status
        }
        for warning in report.warnings { context.console.warn(warning) }
        if report.isValid {
            context.console.err(
                "devicectl: \(archive) is intact: a MobileSync backup of \(BackupCommand.counted(report.counts.files, "file")) "
                    + "(\(ProgressBar.bytes(report.counts.bytes))), \(BackupCommand.counted(report.counts.directories, "directory")) and "
                    + "\(BackupCommand.counted(report.counts.symlinks, "symlink")) in "
                    + "\(BackupCommand.counted(UInt64(report.domains.count), "domain")); every row, record and content "
                    + "file checked")
            return 0
        }
        for problem in report.problems { context.console.errorLine("devicectl: verify: \(problem)") }
        if report.problemCount > report.problems.count {
            context.console.errorLine(
                "devicectl: verify: ... and \(report.problemCount - report.problems.count) more problems")
        }
        context.console.errorLine("devicectl: " + failed)
        return status
    }

    /// `verify --json` of a MobileSync backup (docs/JSON.md, "verify (MobileSync backup)").
    struct MobileSyncResult: Encodable {
        var archive: String
        var format = "mobilesync"
        var path: String
        var ok: Bool
        var counts: JSONCounts
        var domains: Int
        @OrNull var sourceUdid: String?
        var problems: [JSONMessage]
        var problemCount: Int

        init(_ report: MobileSyncVerification.Report, archive: String, backup: String) {
            self.archive = archive
            path = backup
            ok = report.isValid
            counts = JSONCounts(report.counts)
            domains = report.domains.count
            sourceUdid = report.info?.udid
            problems = report.problems.map { JSONMessage($0) }
            problemCount = report.problemCount
        }
    }
}
