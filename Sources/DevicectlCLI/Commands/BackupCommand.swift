// BackupCommand: `devicectl backup`: archive a tree, skipping what is excluded from backup.
import BackupKit
import DeviceKit
import Foundation

enum BackupCommand: Command {
    static let spec = CommandSpec(
        name: "backup", summary: "Archive a tree to tar, skipping everything excluded from backup.",
        positionals: [PositionalSpec("ROOT", help: "The device root or any directory.")],
        options: [
            OptionSpec(["--output", "-o"], .value("ARCHIVE"), help: "The archive to write, or - for stdout (required)."),
            OptionSpec(["--compression"], .value("none|gzip|zstd|xz"), help: "Compression (default: from the extension)."),
            OptionSpec(["--level"], .value("N"), help: "Compression level."),
            OptionSpec(["--exclude"], .value("GLOB"), repeatable: true, help: "Skip paths (relative to ROOT) matching GLOB."),
            OptionSpec(["--dry-run"], help: "Write nothing; list what would be skipped and why."),
            jsonOption,
        ] + progressOptions,
        discussion: """
            Skipped: Apple's exclusion xattr, user.com.apple.MobileBackup=1, user.xdg.robots.backup=false,
            the nodump flag (chattr +d), directories with a valid CACHEDIR.TAG, --exclude matches, and on a
            device root the app bundles, Library/Caches and tmp of data containers, and DeviceLocal.
            A GLOB without '/' also matches the last path component (so '*.log' skips .log files anywhere).
            The extension picks the compression: .tar, .tar.gz/.tgz, .tar.zst, .tar.xz.
            ARCHIVE, a file, is replaced only once the backup completed; a FIFO or character device (/dev/null)
            is written in place; a symlink is followed. Directories and block devices are refused.
            DEVICECTL_NOW pins the manifest's creation time (reproducible archives).
            """
    )

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let root = arguments.positional(0)!
        let patterns = try arguments.all("--exclude").map { glob throws(UsageError) -> ExclusionPattern in
            guard !glob.isEmpty else { throw UsageError("--exclude needs a non-empty GLOB", command: spec.name) }
            return ExclusionPattern(glob)
        }
        if Device.lacksIdentity(at: root) {
            context.console.warn(DeviceError.identityMissing(root).description + "; this backup applies no iOS rules")
        }
        if arguments.flag("--dry-run") {
            return try dryRun(root: root, patterns: patterns, arguments, context)
        }
        guard let archive = arguments.value("--output") else {
            throw UsageError("missing -o ARCHIVE (use -o - for standard output)", command: spec.name)
        }
        let compression = try arguments.value("--compression", as: "none, gzip, zstd or xz") { Compression(rawValue: $0) }
            ?? (archive == "-" ? .none : Compression.implied(byName: archive))
        let level = try arguments.value("--level", as: "an integer") { Int($0) }
        if let level {
            guard let levels = compression.levels else {
                throw UsageError("--level needs compression (--compression gzip|zstd|xz)", command: spec.name)
            }
            guard levels.contains(level) else {
                throw UsageError(
                    "--level \(level) is out of range for \(compression.rawValue) (\(levels.lowerBound)-\(levels.upperBound))",
                    command: spec.name)
            }
        }
        let json = arguments.flag("--json")
        if json && archive == "-" {
            throw UsageError("--json prints on standard output, so it cannot be used with -o -", command: spec.name)
        }
        let request = BackupRequest(
            root: root, output: archive == "-" ? .standardOutput : .file(archive), compression: compression,
            level: level, patterns: patterns, created: try context.now(arguments), tool: "devicectl \(Devicectl.version)")

        let bar = ProgressBar(console: context.console, enabled: context.showsProgress(arguments), label: "backing up")
        let summary: BackupSummary
        do {
            summary = try BackupEngine.backup(
                request,
                progress: { bar.update(files: $0.files, bytes: $0.bytes, seconds: $0.seconds) },
                warning: { message in
                    bar.finish()
                    context.console.warn(message)
                })
            bar.finish()
        } catch {
            bar.finish()
            throw error
        }
        if summary.deviceRoot, let device = try? Device.open(root) {
            // The device's own record of the backup (DeviceLocal is never archived, so this is safe after it).
            // The archive is complete by now: a source that cannot take the record (a read-only device root)
            // is warned about, never a failed backup.
            do {
                try EventLog(device: device).append(DeviceEvent(
                    time: request.created, type: "backup",
                    details: [
                        "archive": archive == "-" ? "stdout" : archive, "files": String(summary.files),
                        "bytes": String(summary.bytes), "archiveBytes": String(summary.archiveBytes),
                    ]))
            } catch {
                context.console.warn(
                    "the backup is complete, but it could not be recorded in the device's event log: \(error)")
            }
        }
        if json {
            context.console.json(jsonObject(summary, root: root, archive: archive, compression: compression))
        } else {
            printSummary(summary, root: root, archive: archive, context.console)
        }
        return 0
    }

    // MARK: - Dry run

    private static func dryRun(
        root: String, patterns: [ExclusionPattern], _ arguments: ParsedArguments, _ context: CommandContext
    ) throws -> Int32 {
        let json = arguments.flag("--json")
        var listed: [[String: Any]] = []
        let summary = try BackupEngine.dryRun(
            root: root, patterns: patterns,
            excluded: { item in
                if json {
                    listed.append(["path": item.path, "reasons": item.reasons.map(\.rawValue)])
                } else {
                    let shown = item.kind == .directory ? item.path + "/" : item.path
                    context.console.out("\(shown)  (\(item.reasons.map(\.rawValue).joined(separator: ", ")))")
                }
            },
            warning: { context.console.warn($0) })
        if json {
            var object: [String: Any] = [
                "excluded": listed, "files": summary.files, "bytes": summary.bytes,
                "directories": summary.directories, "symlinks": summary.symlinks, "hardlinks": summary.hardlinks,
                "deviceRoot": summary.deviceRoot,
            ]
            object["skipped"] = excludedObject(summary.excluded)
            context.console.json(object)
        } else {
            let console = context.console
            console.err(
                "devicectl: dry run of \(root): would back up \(ProgressBar.count(summary.files)) files "
                    + "(\(ProgressBar.bytes(summary.bytes))), \(ProgressBar.count(summary.directories)) directories, "
                    + "\(ProgressBar.count(summary.symlinks)) symlinks, \(ProgressBar.count(summary.hardlinks)) hard links")
            console.err("  " + skippedLine(summary.excluded))
        }
        return 0
    }

    // MARK: - Output

    private static func printSummary(_ summary: BackupSummary, root: String, archive: String, _ console: Console) {
        let target = archive == "-" ? "standard output" : archive
        let rate = summary.seconds > 0 ? Double(summary.bytes) / summary.seconds : 0
        console.err("devicectl: backed up \(root) to \(target)\(summary.deviceRoot ? " (device root: iOS rules applied)" : "")")
        console.err(
            "  stored   \(ProgressBar.count(summary.files)) files (\(ProgressBar.bytes(summary.bytes))), "
                + "\(ProgressBar.count(summary.directories)) directories, \(ProgressBar.count(summary.symlinks)) symlinks, "
                + "\(ProgressBar.count(summary.hardlinks)) hard links")
        console.err("  " + skippedLine(summary.excluded))
        console.err(
            "  archive  \(ProgressBar.bytes(summary.archiveBytes)) in \(String(format: "%.2f", summary.seconds)) s "
                + "(\(ProgressBar.bytes(UInt64(rate)))/s)")
    }

    private static func skippedLine(_ excluded: Manifest.Excluded) -> String {
        var line = "skipped  \(ProgressBar.count(excluded.files)) entries (\(ProgressBar.bytes(excluded.bytes)))"
        let reasons = ExclusionReason.allCases.compactMap { reason -> String? in
            guard let count = excluded.byReason[reason.rawValue] else { return nil }
            return "\(reason.rawValue) \(ProgressBar.count(count.files)) (\(ProgressBar.bytes(count.bytes)))"
        }
        if !reasons.isEmpty { line += ": " + reasons.joined(separator: ", ") }
        return line
    }

    private static func excludedObject(_ excluded: Manifest.Excluded) -> [String: Any] {
        [
            "files": excluded.files, "bytes": excluded.bytes,
            "byReason": excluded.byReason.mapValues { ["files": $0.files, "bytes": $0.bytes] },
        ]
    }

    private static func jsonObject(_ summary: BackupSummary, root: String, archive: String, compression: Compression) -> [String: Any] {
        [
            "root": root, "archive": archive, "compression": compression.rawValue,
            "files": summary.files, "bytes": summary.bytes, "directories": summary.directories,
            "symlinks": summary.symlinks, "hardlinks": summary.hardlinks, "archiveBytes": summary.archiveBytes,
            "excluded": excludedObject(summary.excluded), "seconds": summary.seconds,
            "bytesPerSecond": summary.seconds > 0 ? Double(summary.bytes) / summary.seconds : 0,
            "warnings": summary.warnings, "deviceRoot": summary.deviceRoot,
        ]
    }
}
