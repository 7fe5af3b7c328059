// VerifyCommand: `devicectl verify`: one read of the archive, every digest and the structure checked.
import BackupKit
import DeviceKit
import Foundation
import SystemKit
import TarKit

enum VerifyCommand: Command {
    static let spec = CommandSpec(
        name: "verify", summary: "Check an archive's structure and every digest against its manifest.",
        positionals: [PositionalSpec("ARCHIVE", help: "The archive, - for stdin, or a MobileSync backup directory.")],
        options: [
            OptionSpec(
                ["--max-bytes"], .value("N"),
                help: "Refuse more than N bytes of file data (K, M, G, T suffixes; default 64G)."),
            passwordFileOption, quietOption, jsonOption,
        ] + progressOptions,
        discussion: """
            Reads the archive once without extracting: hashes every file and compares it with the manifest
            (path, size, SHA-256), checks counts and the members line (metadata of every member and the manifest
            itself), checks each member the way restore does, and checks the tar framing. Exit 1 naming each bad
            member (missing, extra, size or digest mismatch), the damage or the truncation; exit 1 too for an
            archive without a manifest (nothing to verify against). An archive holding more file data than
            --max-bytes (64 GiB unless told) is refused at the member that crosses it, as restore refuses one that
            does not fit on ROOT's file system. -q prints nothing for an intact archive, and a bad one's problems.
            On a terminal (or with --progress) a progress line shows the share of an archive file read so far, as a
            bar and a percentage, and the time left.
            A directory is a MobileSync backup (or a MobileSync/Backup folder holding one): its plists, every
            Manifest.db row and record as restore would check them, every file's content file and its size, and no
            stray content file; nothing in it is changed. An encrypted one needs its password (--password-file,
            DEVICECTL_BACKUP_PASSWORD, or a prompt on a terminal): Manifest.db is decrypted into a private unnamed
            file, and every file is decrypted and its padding checked (a length other than the record's is a warning).
            Example: devicectl verify /tmp/phone.tar.zst
            """
    )

    /// `--password-file FILE` for reading an encrypted MobileSync backup (list, verify).
    static let passwordFileOption = OptionSpec(
        ["--password-file"], .value("FILE"),
        help: "An encrypted MobileSync backup's password: FILE's first line (else DEVICECTL_BACKUP_PASSWORD, a prompt).")

    /// `--max-bytes` as a limit (`ExpansionLimit.reading` without it), shared with `list`.
    static func maxBytes(_ arguments: ParsedArguments) throws(UsageError) -> ExpansionLimit {
        try arguments.value("--max-bytes", as: "a byte count (e.g. 1000000, 512M, 200G)") {
            ExpansionLimit(parsing: $0)
        } ?? .reading
    }

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        guard let archive = arguments.positional(0), !archive.isEmpty else {
            throw UsageError("ARCHIVE must not be empty", command: spec.name)
        }
        let limit = try maxBytes(arguments)
        try ProcessSignals.record()
        defer { ProcessSignals.restore() }
        if case .mobileSync(let backup) = try BackupLocation.of(archive) {
            return try verifyMobileSync(backup, archive: archive, arguments, context)
        }
        let bar = ProgressBar(console: context.console, enabled: context.showsProgress(arguments), label: "verifying")
        let report: VerifyReport
        do {
            report = try ArchiveVerification.verify(
                archive: archive, limit: limit, progress: { bar.update($0) })
            bar.finish()
        } catch {
            bar.finish()
            throw error
        }
        if arguments.flag("--json") {
            context.console.result(Result(report, archive: archive))
            guard !report.isValid else { return 0 }
            let status = report.interruptedBy.map { 128 + $0 } ?? 1
            context.console.failure(failedLine(report, archive: archive), exitStatus: status, path: archive)
            return status
        }
        if report.isValid {
            context.console.err(
                "devicectl: \(archive) is intact: \(ProgressBar.count(report.counts.files)) files "
                    + "(\(ProgressBar.bytes(report.counts.bytes))) match the manifest's SHA-256, "
                    + "\(ProgressBar.count(report.members)) members"
                    + (report.metadataChecked ? "; metadata and manifest verified too" : ""))
            return 0
        }
        for problem in report.problems { context.console.errorLine("devicectl: verify: \(problem)") }
        if report.problemCount > report.problems.count {
            context.console.errorLine(
                "devicectl: verify: ... and \(report.problemCount - report.problems.count) more problems")
        }
        context.console.errorLine("devicectl: " + failedLine(report, archive: archive))
        return report.interruptedBy.map { 128 + $0 } ?? 1
    }

    /// `ARCHIVE failed verification (N problems)`.
    static func failedLine(_ report: VerifyReport, archive: String) -> String {
        "\(archive) failed verification (\(report.problemCount) problem\(report.problemCount == 1 ? "" : "s"))"
    }
}
