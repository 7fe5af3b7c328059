// ListCommand+MobileSync: `devicectl list DIR` for a MobileSync backup: each row, then what the backup says.
import BackupKit
import DeviceKit
import Foundation
import MobileSyncKit
import TarKit

extension ListCommand {
    /// Lists the backup at `backup` (`archive` as the user named it); PATH filters apply to `domain/path`.
    static func listMobileSync(
        _ backup: String, archive: String, filter: inout MemberFilter, summaryOnly: Bool, json: Bool,
        _ arguments: ParsedArguments, _ context: CommandContext
    ) throws -> Int32 {
        var members: [MobileSyncMember] = []
        let password = PasswordSource.forReading(arguments, environment: context.environment, command: spec.name)
        // As for an archive: a progress line (its share of Manifest.db's rows) only when stdout is not the terminal
        // it is drawn on, or carries no member lines.
        let stdoutFree = summaryOnly || json || isatty(STDOUT_FILENO) == 0
        let bar = ProgressBar(
            console: context.console, enabled: stdoutFree && context.showsProgress(arguments), label: "listing")
        let summary: MobileSyncListing.Summary
        let lines = OutputLines(context.console)
        defer { lines.flush() }
        do {
            summary = try MobileSyncListing.list(path: backup, password: password, progress: { bar.update($0) }) {
                entry in
                guard filter.selects(name(entry)), !summaryOnly else { return }
                if json {
                    members.append(MobileSyncMember(entry))
                } else {
                    lines.append { line(entry, to: &$0) }
                }
            }
            lines.flush()
            bar.finish()
        } catch {
            bar.finish()
            throw error
        }
        if json {
            context.console.result(MobileSyncResult(archive: archive, backup: backup, summary: summary, members: members))
        } else {
            for line in summaryLines(summary, backup: backup).dropFirst(summaryOnly ? 1 : 0) { context.console.out(line) }
        }
        if !filter.unmatched.isEmpty {
            let names = filter.unmatched.map { "'\($0)'" }.joined(separator: ", ")
            context.console.failure("\(archive): not found in backup: \(names)", exitStatus: 1, path: archive)
            return 1
        }
        return 0
    }

    static func kind(_ kind: BackupFileRecord.Kind) -> ArchiveReader.Kind {
        switch kind {
        case .file: .regular
        case .directory: .directory
        case .symlink: .symlink
        }
    }

    /// A row's name as list shows and selects it: `domain/path`, or the domain for its root row.
    private static func name(_ entry: MobileSyncListing.Entry) -> String {
        entry.path.isEmpty ? entry.domain : entry.domain + "/" + entry.path
    }

    /// `-rw-r--r-- 501/501            69 2026-12-02T04:20:40Z  AppDomainGroup-group.x/Library/Preferences/x.plist`,
    /// appended to `out`.
    static func line(_ entry: MobileSyncListing.Entry, to out: inout [UInt8]) {
        ArchiveFormat.appendLine(
            kind(entry.kind), permissions: entry.mode & 0o7777, owner: (Int64(entry.userID), Int64(entry.groupID)),
            size: entry.size, mtime: (Timestamp.wholeSeconds(entry.modified), 0),
            name: Array(name(entry).utf8), link: entry.target.map { Array($0.utf8) }, to: &out)
    }

    static func summaryLines(_ summary: MobileSyncListing.Summary, backup: String) -> [String] {
        let info = summary.info
        let shown: (String?) -> String = { $0.map(ArchiveFormat.name) ?? "(not recorded)" }
        let apps = info.applications.map { ArchiveFormat.name($0.bundleId) }
        return [
            "",
            "MobileSync backup \(ArchiveFormat.name(backup)): \(ProgressBar.count(summary.counts.files + summary.counts.directories + summary.counts.symlinks)) "
                + "entries in \(summary.domains.count) domains"
                + (summary.decrypted ? " (encrypted)" : info.isEncrypted ? " (encrypted; decrypted by another tool)" : ""),
            "  device: \(shown(info.deviceName)), UDID \(shown(info.udid)), \(shown(info.productType)) "
                + "iOS \(shown(info.productVersion))",
            "  made: " + (info.date.map { Timestamp.format(seconds: Timestamp.wholeSeconds($0), nanoseconds: 0) } ?? "(not recorded)")
                + ", snapshot \(shown(info.snapshotState))",
            "  apps: " + (apps.isEmpty ? "none" : apps.joined(separator: ", ")),
            "  totals: \(BackupCommand.counted(summary.counts.files, "file")) (\(ProgressBar.bytes(summary.counts.bytes))), "
                + "\(BackupCommand.counted(summary.counts.directories, "directory")), "
                + "\(BackupCommand.counted(summary.counts.symlinks, "symlink"))",
        ]
    }

    /// `list --json` of a MobileSync backup (docs/JSON.md, "list (MobileSync backup)").
    struct MobileSyncResult: Encodable {
        struct Backup: Encodable {
            @OrNull var sourceUdid: String?
            @OrNull var deviceName: String?
            @OrNull var productType: String?
            @OrNull var productVersion: String?
            @OrNull var date: String?
            var encrypted: Bool
            @OrNull var snapshotState: String?
            var apps: [String]
        }

        var archive: String
        var format = "mobilesync"
        var path: String
        var backup: Backup
        var counts: JSONCounts
        var domains: Int
        var members: [MobileSyncMember]

        init(archive: String, backup path: String, summary: MobileSyncListing.Summary, members: [MobileSyncMember]) {
            self.archive = archive
            self.path = path
            let info = summary.info
            backup = Backup(
                sourceUdid: info.udid, deviceName: info.deviceName, productType: info.productType,
                productVersion: info.productVersion,
                date: info.date.map { Timestamp.format(seconds: Timestamp.wholeSeconds($0), nanoseconds: 0) },
                encrypted: info.isEncrypted, snapshotState: info.snapshotState,
                apps: info.applications.map(\.bundleId))
            counts = JSONCounts(summary.counts)
            domains = summary.domains.count
            self.members = members
        }
    }

    /// One row of a MobileSync backup.
    struct MobileSyncMember: Encodable {
        var domain: String
        var path: String
        var type: String
        var mode: String
        var uid: UInt32
        var gid: UInt32
        var size: UInt64
        var mtime: String
        @OrNull var link: String?

        init(_ entry: MobileSyncListing.Entry) {
            domain = entry.domain
            path = entry.path
            type = ListCommand.kind(entry.kind).name
            mode = String(entry.mode & 0o7777, radix: 8)
            uid = entry.userID
            gid = entry.groupID
            size = entry.size
            mtime = Timestamp.format(seconds: Timestamp.wholeSeconds(entry.modified), nanoseconds: 0)
            link = entry.target
        }
    }
}
