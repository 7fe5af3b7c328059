// ListCommand: `devicectl list`: an archive's members (type, mode, size, mtime, path) and manifest summary.
import BackupKit
import DeviceKit
import Foundation
import SystemKit
import TarKit

enum ListCommand: Command {
    static let spec = CommandSpec(
        name: "list", summary: "List an archive's members and its manifest summary.",
        positionals: [
            PositionalSpec("ARCHIVE", help: "The archive, - for stdin, or a MobileSync backup directory."),
            PositionalSpec("PATH", help: "Only these members and what is below them, or those a glob matches.",
                           optional: true, variadic: true),
        ],
        options: [
            OptionSpec(["--summary"], help: "Print only the manifest summary, not the members."), quietOption,
            OptionSpec(
                ["--max-bytes"], .value("N"),
                help: "Refuse more than N bytes of file data (K, M, G, T suffixes; default 64G)."),
            VerifyCommand.passwordFileOption, jsonOption,
        ] + progressOptions,
        discussion: """
            One line per member: type and mode, owner, size, mtime (UTC), path (and link target). Then the
            manifest: the source device, the apps a restore reinstalls, the widgets, and the totals. The archive is
            read by restore's rules: damage, a manifest restore refuses, or more file data than --max-bytes (64 GiB
            unless told) fails the command after listing what came before. PATH: a name selects that member and
            everything below it (Library); a glob with *, ? or [ uses the --exclude language ('*.plist'). A PATH
            that selects nothing fails the command (exit 1) after the listing, as tar -t does. The summary's count
            is of all members. A directory is a MobileSync backup (or a MobileSync/Backup folder holding one):
            one line per Manifest.db row (domain/path), then the device, iOS version, date and apps.
            With --progress, or on a terminal while the member lines go elsewhere (a pipe, a file, --summary,
            --json), a progress line on stderr shows the share of an archive file read and the time left.
            Example: devicectl list /tmp/phone.tar.zst
            Example: devicectl list /tmp/phone.tar.zst Library/SpringBoard '*.plist' --summary
            """
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        guard let archive = arguments.positional(0), !archive.isEmpty else {
            throw UsageError("ARCHIVE must not be empty", command: spec.name)
        }
        let json = arguments.flag("--json")
        let limit = try VerifyCommand.maxBytes(arguments)
        try ProcessSignals.record()
        defer { ProcessSignals.restore() }
        var filter = try MemberFilter(Array(arguments.positionals.dropFirst()), command: spec.name)
        let summaryOnly = arguments.flag("--summary")
        if case .mobileSync(let backup) = try BackupLocation.of(archive) {
            return try listMobileSync(
                backup, archive: archive, filter: &filter, summaryOnly: summaryOnly, json: json, arguments, context)
        }
        var members: [Member] = []
        let summary: ListSummary
        // A progress line on stderr, but not between member lines on the same terminal: only when stdout goes
        // elsewhere, or carries no member lines (--summary, --json).
        let stdoutFree = summaryOnly || json || isatty(STDOUT_FILENO) == 0
        let bar = ProgressBar(
            console: context.console, enabled: stdoutFree && context.showsProgress(arguments), label: "listing")
        let lines = OutputLines(context.console)
        defer { lines.flush() }
        do {
            summary = try ArchiveListing.list(
                archive: archive, limit: limit, progress: { bar.update($0) },
                each: { member in
                    guard filter.selects(member.path), !summaryOnly else { return }
                    if json {
                        members.append(Member(member))
                    } else {
                        lines.append { line(member, to: &$0) }
                    }
                })
            lines.flush()
            bar.finish()
        } catch let error as ArchiveReaderError {
            bar.finish()
            throw ArchiveFailure(archive: archive, cause: error)
        } catch {
            bar.finish()
            throw error
        }
        let status = try report(
            summary, members: members, archive: archive, json: json, blankLine: !summaryOnly, context)
        if status == 0, !filter.unmatched.isEmpty {
            let names = filter.unmatched.map { "'\($0)'" }.joined(separator: ", ")
            context.console.failure("\(archive): not found in archive: \(names)", exitStatus: 1, path: archive)
            return 1
        }
        return status
    }

    /// Prints the manifest summary (or the JSON object); 1 when the manifest is malformed.
    private static func report(
        _ summary: ListSummary, members: [Member], archive: String, json: Bool, blankLine: Bool,
        _ context: CommandContext
    ) throws -> Int32 {
        if json {
            context.console.result(
                Result(
                    archive: archive, format: summary.format, filters: summary.filters, members: members,
                    manifest: summary.header.map { ManifestSummary($0, totals: summary.totals) },
                    manifestProblem: summary.manifestProblem))
        } else {
            for line in manifestLines(summary).dropFirst(blankLine ? 0 : 1) { context.console.out(line) }
        }
        if let problem = summary.manifestProblem {
            // Everything readable was listed; a malformed manifest still fails the command, naming it.
            context.console.failure(
                "\(archive): the manifest (\(Manifest.memberName)) is malformed: " + ArchiveFormat.name(problem),
                exitStatus: 1, path: archive)
            return 1
        }
        return 0
    }

    /// `-rw-r--r-- 0/0              1234 2026-11-29T12:00:00Z  path -> target`, appended to `out`.
    static func line(_ member: ArchiveReader.Member, to out: inout [UInt8]) {
        ArchiveFormat.appendLine(
            member.kind, permissions: member.permissions, owner: (member.uid, member.gid), size: member.size,
            mtime: (member.mtimeSeconds, member.mtimeNanoseconds), name: member.pathBytes, link: member.linkBytes,
            to: &out)
    }

    static func manifestLines(_ summary: ListSummary) -> [String] {
        var lines = [
            "",
            "\(ProgressBar.count(summary.members)) members; \(summary.format)"
                + (summary.filters.isEmpty ? "" : ", " + summary.filters.joined(separator: "+") + " compressed"),
        ]
        if let problem = summary.manifestProblem {
            lines.append("manifest: unreadable: \(ArchiveFormat.name(problem))")
        }
        guard let header = summary.header else {
            if summary.manifestProblem == nil { lines.append("no devicectl manifest (not made by 'devicectl backup')") }
            return lines
        }
        // Every text from the archive is escaped like member names: the manifest is as hostile as they are.
        let shown: (String) -> String = { ArchiveFormat.name($0) }
        lines.append(
            "manifest: \(shown(header.format)) v\(header.formatVersion), made by \(shown(header.tool)) "
                + "at \(shown(header.created))")
        lines.append("  device: \(header.source.udid.map(shown) ?? "(not a device root)")")
        let recorded = header.engine == nil ? " (not recorded: read as icloud)" : ""
        lines.append("  engine: \(header.appliedEngine)\(recorded)")
        let apps = header.apps.map { app in
            "\(shown(app.bundleId)) (\(shown(app.name))\(app.widget == nil ? "" : ", widget")"
                + "\(app.groups.isEmpty ? "" : ", groups " + app.groups.map(shown).joined(separator: " ")))"
        }
        lines.append("  apps: " + (apps.isEmpty ? "none" : apps.joined(separator: ", ")))
        lines.append(
            "  widgets: "
                + (header.widgets.isEmpty ? "none" : header.widgets.map { shown($0.app) }.joined(separator: ", ")))
        if let totals = summary.totals {
            lines.append(
                "  totals: \(BackupCommand.counted(totals.files, "file")) (\(ProgressBar.bytes(totals.bytes))), "
                    + "\(BackupCommand.counted(totals.directories, "directory")), "
                    + "\(BackupCommand.counted(totals.symlinks, "symlink")), "
                    + "\(BackupCommand.counted(totals.hardlinks, "hard link"))")
            // The manifest counts a skipped directory as one entry of 0 bytes: its contents were never walked.
            var excluded =
                "  excluded: \(BackupCommand.counted(totals.excluded.files, "entry")) "
                + "(\(ProgressBar.bytes(totals.excluded.bytes)) in files; directory contents not measured)"
            let reasons = totals.excluded.byReason.sorted { $0.key < $1.key }
                .map {
                    "\(shown($0.key)) \(BackupCommand.counted($0.value.files, "entry")) "
                        + "(\(ProgressBar.bytes($0.value.bytes)))"
                }
            if !reasons.isEmpty { excluded += ": " + reasons.joined(separator: ", ") }
            lines.append(excluded)
        }
        return lines
    }
}

extension String {
    /// Right-aligned in `width` columns.
    func leftPadding(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
    /// Left-aligned in `width` columns.
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
