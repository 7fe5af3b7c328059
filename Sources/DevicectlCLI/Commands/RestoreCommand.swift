// RestoreCommand: `devicectl restore`: an archive onto a fresh device root, all or nothing.
import BackupKit
import DeviceKit
import Foundation
import SystemKit
import TarKit

enum RestoreCommand: Command {
    static let spec = CommandSpec(
        name: "restore", summary: "Restore an archive onto a fresh device root, all or nothing.",
        positionals: [
            PositionalSpec(
                "ARCHIVE",
                help: "The archive, - for stdin, or a MobileSync backup directory (or a MobileSync/Backup folder "
                    + "holding one)."),
            PositionalSpec("ROOT", help: "A fresh device root, or a path that does not exist yet."),
        ],
        options: [VerifyCommand.passwordFileOption, verboseOption, quietOption, nowOption, jsonOption] + progressOptions,
        discussion: """
            ROOT must be a device made by 'devicectl init' with no apps and no user data, an empty directory, or a
            path that does not exist (then it is initialised as a new device). The device keeps its own identity:
            DeviceLocal/ members in the archive are skipped, and so is everything at or below a path this device
            flags excluded from backup (Apple's xattr or com.apple.MobileBackup; not in ROOT/Library/Preferences):
            the device keeps its own directory there, and the summary and --json "skipped" name it.
            Every member is created inside a staging directory in ROOT through openat2(RESOLVE_BENEATH), every
            file is checked against the manifest's SHA-256, the manifest's apps are reinstalled, and only then is the tree moved into place. Any failure (a hostile or
            damaged archive, a mismatch, no space, SIGINT/SIGTERM) leaves ROOT exactly as it was.
            Plain tars from GNU tar or bsdtar (any compression) restore with a warning that nothing was verified.
            A MobileSync backup (Finder, iTunes, idevicebackup2, or 'devicectl backup --format mobilesync') restores
            the same way: app domains into new containers, /var/mobile domains into ROOT, the apps of Manifest.plist
            reinstalled; domains outside /var/mobile (RootDomain, KeychainDomain, ...) are counted, not restored. An
            encrypted one needs its password (--password-file, DEVICECTL_BACKUP_PASSWORD, or a prompt on a terminal).
            -v lists each restored path on stdout as it is staged ('tar -xv'; directories end in '/', names escaped
            as 'list' shows them; not with --json); -q prints only errors.
            Example: devicectl restore /tmp/phone.tar.zst /tmp/new-phone
            """
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        guard let archive = arguments.positional(0), !archive.isEmpty else {
            throw UsageError("ARCHIVE must not be empty", command: spec.name)
        }
        guard let given = arguments.positional(1), !given.isEmpty else {
            throw UsageError("ROOT must not be empty", command: spec.name)
        }
        // Resolved once, as the shell means it: the restore, its messages and its JSON name the same directory.
        let root = try RootPath.resolve(given)
        var options = RestoreOptions()
        options.now = try context.now(arguments)
        options.pinsThreads = try context.pinsThreads()
        options.password = PasswordSource.forReading(arguments, environment: context.environment, command: spec.name)
        options.waitingForDevice = {
            context.console.err(
                "devicectl: waiting for another devicectl to finish with \(root) (it holds the device)")
        }
        let bar = ProgressBar(console: context.console, enabled: context.showsProgress(arguments), label: "restoring")
        // The share of the archive read so far, when it is a file of known size (not a pipe or standard input).
        options.progress = { bar.update($0) }
        if arguments.flag("--verbose") {
            let console = context.console
            options.restored = { path, kind in
                console.out(ArchiveFormat.name(bytes: path.bytes) + (kind == .directory ? "/" : ""))
            }
        }
        try ProcessSignals.record()
        defer { ProcessSignals.restore() }
        let report: RestoreReport
        do {
            report = try ArchiveRestore.restore(archive: archive, root: root, options: options)
            bar.finish()
        } catch let refusal as RestoreError where refusal.isArchiveFault {
            // The archive's own fault (damaged, a member refused, not matching its manifest): named by it.
            bar.finish()
            throw ArchiveFailure(archive: archive, cause: refusal)
        } catch RestoreError.system(let cause) where cause.path != archive {
            bar.finish()
            throw RestoreFailure(root: root, cause: cause)
        } catch let cause as SystemError where cause.path != archive {
            // The archive's own failures name it (`ARCHIVE: no such file or directory`); the others are ROOT's.
            bar.finish()
            throw RestoreFailure(root: root, cause: cause)
        } catch {
            bar.finish()
            throw error
        }
        for warning in report.warnings { context.console.warn(warning) }
        if arguments.flag("--json") {
            context.console.result(Result(report, archive: archive, root: root))
        } else {
            context.console.err(summary(report, archive: archive, root: root))
        }
        return 0
    }

    static func summary(_ report: RestoreReport, archive: String, root: String) -> String {
        var lines = [
            "devicectl: restored \(archive) onto \(root)\(report.initialized ? " (initialised as a new device)" : "")",
            "  \(ProgressBar.count(report.counts.files)) files (\(ProgressBar.bytes(report.counts.bytes))), "
                + "\(ProgressBar.count(report.counts.directories)) directories, "
                + "\(ProgressBar.count(report.counts.symlinks)) symlinks, "
                + "\(ProgressBar.count(report.counts.hardlinks)) hard links in \(NumberText.fixed(report.seconds, places: 2)) s",
        ]
        if report.format == "mobilesync" {
            lines.append(
                "  checked: every row and content file against Manifest.db (MobileSync backups carry no digests)")
            if !report.notPlaced.isEmpty {
                lines.append(
                    "  not restored (outside /var/mobile): "
                        + report.notPlaced.map { "\($0.domain) \(BackupCommand.counted($0.entries, "entry"))" }
                        .joined(separator: ", "))
            }
        } else if report.verified {
            lines.append(
                "  verified: every file's SHA-256 matches the manifest"
                    + (report.metadataVerified ? ", and all metadata" : ""))
        } else {
            lines.append("  not verified: the archive has no manifest")
        }
        if !report.apps.isEmpty { lines.append("  reinstalled apps: " + report.apps.joined(separator: ", ")) }
        for skipped in report.skipped {
            lines.append(
                "  skipped \(ArchiveFormat.name(skipped.path)): this device marks it excluded from backup "
                    + "(\(skipped.reason)); kept as it was, "
                    + "\(BackupCommand.counted(skipped.entries, "archive entry")) not restored")
        }
        return lines.joined(separator: "\n")
    }
}
