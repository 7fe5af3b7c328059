// ListCommand: `devicectl list`: an archive's members (type, mode, size, mtime, path) and manifest summary.
import BackupKit
import DeviceKit
import Foundation
import SystemKit
import TarKit

enum ListCommand: Command {
    static let spec = CommandSpec(
        name: "list", summary: "List an archive's members and its manifest summary.",
        positionals: [PositionalSpec("ARCHIVE", help: "The archive, or - for stdin.")],
        options: [
            OptionSpec(
                ["--max-bytes"], .value("N"),
                help: "Refuse more than N bytes of file data (K, M, G, T suffixes; default 64G)."),
            jsonOption,
        ],
        discussion: """
            One line per member: type and mode, owner, size, mtime (UTC), path (and link target). Then the
            manifest: the source device, the apps a restore reinstalls, the widgets, and the totals. The archive is
            read by restore's rules: damage, a manifest restore refuses, or more file data than --max-bytes (64 GiB
            unless told) fails the command after listing what came before.
            Example: devicectl list /tmp/phone.tar.zst
            """
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        guard let archive = arguments.positional(0), !archive.isEmpty else {
            throw UsageError("ARCHIVE must not be empty", command: spec.name)
        }
        let json = arguments.flag("--json")
        let limit = try VerifyCommand.maxBytes(arguments)
        InterruptSignal.install()
        defer { InterruptSignal.uninstall() }
        var members: [[String: Any]] = []
        let summary: ListSummary
        do {
            summary = try list(archive, limit: limit, json: json, into: &members, context)
        } catch let error as ArchiveReaderError {
            throw ArchiveFailure(archive: archive, cause: error)
        }
        return try report(summary, members: members, archive: archive, json: json, context)
    }

    private static func list(
        _ archive: String, limit: ExpansionLimit, json: Bool, into members: inout [[String: Any]],
        _ context: CommandContext
    ) throws -> ListSummary {
        try ArchiveListing.list(archive: archive, limit: limit) { member in
            if json {
                var entry: [String: Any] = [
                    "type": member.kind.name, "mode": String(member.permissions, radix: 8), "size": member.size,
                    "mtime": ArchiveFormat.time(member.mtimeSeconds, member.mtimeNanoseconds), "path": member.path,
                    "uid": member.uid, "gid": member.gid,
                ]
                if let link = member.linkTarget { entry["link"] = link }
                members.append(entry)
            } else {
                context.console.out(line(member))
            }
        }
    }

    /// Prints the manifest summary (or the JSON object); 1 when the manifest is malformed.
    private static func report(
        _ summary: ListSummary, members: [[String: Any]], archive: String, json: Bool,
        _ context: CommandContext
    ) throws -> Int32 {
        if json {
            context.console.json([
                "members": members, "manifest": manifestJSON(summary), "format": summary.format,
                "filters": summary.filters,
            ])
        } else {
            for line in manifestLines(summary) { context.console.out(line) }
        }
        if let problem = summary.manifestProblem {
            // Everything readable was listed; a malformed manifest still fails the command, naming it.
            context.console.err(
                "devicectl: \(archive): the manifest (\(Manifest.memberName)) is malformed: "
                    + ArchiveFormat.name(problem))
            return 1
        }
        return 0
    }

    /// `-rw-r--r--  0/0      1234 2026-11-29T12:00:00Z  path -> target`.
    static func line(_ member: ArchiveReader.Member) -> String {
        let owner = "\(member.uid)/\(member.gid)"
        var text =
            ArchiveFormat.mode(member.kind, member.permissions) + " " + owner.padding(9) + " "
            + String(member.size).leftPadding(12) + " "
            + ArchiveFormat.time(member.mtimeSeconds, member.mtimeNanoseconds)
            + "  " + ArchiveFormat.name(bytes: member.pathBytes)
        if let link = member.linkBytes {
            text += (member.kind == .hardLink ? " link to " : " -> ") + ArchiveFormat.name(bytes: link)
        }
        return text
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

    static func manifestJSON(_ summary: ListSummary) -> Any {
        guard let header = summary.header else {
            return summary.manifestProblem.map { ["problem": $0] as [String: Any] } ?? NSNull()
        }
        var object: [String: Any] = [
            "tool": header.tool, "created": header.created, "formatVersion": header.formatVersion,
            "device": header.source.udid ?? NSNull(),
            "apps": header.apps.map { app -> [String: Any] in
                ["bundleId": app.bundleId, "name": app.name, "groups": app.groups, "widget": app.widget != nil]
            },
            "widgets": header.widgets.map(\.app),
        ]
        if let totals = summary.totals {
            object["totals"] =
                [
                    "files": totals.files, "bytes": totals.bytes, "directories": totals.directories,
                    "symlinks": totals.symlinks,
                    "hardlinks": totals.hardlinks,
                    "excluded": [
                        "files": totals.excluded.files, "bytes": totals.excluded.bytes,
                        "byReason": totals.excluded.byReason.mapValues { ["files": $0.files, "bytes": $0.bytes] },
                    ] as [String: Any],
                ] as [String: Any]
        }
        if let problem = summary.manifestProblem { object["problem"] = problem }
        return object
    }
}

extension String {
    /// Right-aligned in `width` columns.
    fileprivate func leftPadding(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
    /// Left-aligned in `width` columns.
    fileprivate func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
