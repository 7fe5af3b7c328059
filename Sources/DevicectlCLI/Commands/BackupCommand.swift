// BackupCommand: `devicectl backup`: archive a tree, skipping what is excluded from backup.
import BackupKit
import DeviceKit
import Foundation
import SystemKit
import TarKit

enum BackupCommand: Command {
    static let spec = CommandSpec(
        name: "backup", summary: "Archive a tree to tar or a MobileSync backup, skipping what is excluded from backup.",
        positionals: [PositionalSpec("ROOT", help: "The device root or any directory.")],
        options: [
            OptionSpec(["--output", "-o"], .value("ARCHIVE"), help: "The archive to write, or - for stdout (required)."),
            OptionSpec(
                ["--format"], .value("tar|mobilesync"),
                help: "tar (default), or mobilesync: a Finder/iTunes backup directory, -o DIR."),
            OptionSpec(
                ["--encrypt"], help: "mobilesync: an encrypted backup (password: --password-file, the environment, a prompt)."),
            OptionSpec(["--password-file"], .value("FILE"), help: "The backup password: FILE's first line (- for stdin)."),
            OptionSpec(
                ["--kdf-iterations"], .value("SHA256,SHA1"),
                help: "For tests only: fewer key-derivation rounds than a device's 10000000,10000 (weaker)."),
            OptionSpec(["--compression"], .value("none|gzip|zstd|xz"), help: "Compression (default: from the extension)."),
            OptionSpec(["--level"], .value("N"), help: "Compression level."),
            OptionSpec(
                ["--exclude"], .value("GLOB"), repeatable: true,
                help: "Skip paths (relative to ROOT) matching GLOB (below)."),
            engineOption,
            OptionSpec(
                ["--exclude-from"], .value("FILE"), repeatable: true,
                help: "Skip paths matching the patterns in FILE: one GLOB a line, # comments, - for stdin."),
            OptionSpec(
                ["--one-file-system"],
                help: "Do not descend into other file systems: a mount point is stored as an empty directory."),
            OptionSpec(
                ["--dry-run"], help: "Write nothing; list what would be skipped and why (with -v, stored too)."),
            verboseOption, quietOption, jsonOption,
        ] + progressOptions,
        discussion: """
            Skipped: Apple's exclusion xattr, user.com.apple.MobileBackup=1, user.xdg.robots.backup=false,
            the nodump flag (chattr +d), directories with a valid CACHEDIR.TAG, --exclude matches, and on a
            device root the app bundles, Library/Caches, tmp and SystemData of every container, and DeviceLocal.
            --engine picks Apple's rules (recorded in the manifest): every engine honours the exclusion xattr
            (except under ROOT/Library/Preferences, backed up anyway); icloud also honours
            com_apple_cloudBackup_excludeItem, computer (unencrypted) com_apple_unencryptedBackup_excludeItem;
            computer-encrypted and quick-start neither.
            GLOB: without '/' it matches a name at any depth ('*.log', 'build'); with '/' it is anchored at ROOT
            ('Containers/Data'; a leading '/' or './' anchors too: '/build' is only ROOT's build). '*' and '?'
            never match '/'; '**' as a whole component matches any number of them ('**/tmp', 'a/**/b';
            'Documents/**' is everything below Documents); [a-z], [!a-z]; '\\' escapes. Invalid globs are refused.
            The extension picks the compression: .tar, .tar.gz/.tgz/.gz, .tar.zst/.zst, .tar.xz/.xz; a name without
            one is a plain tar unless --compression says otherwise. Other archive suffixes (.tar.bz2, .zip) and a
            suffix that contradicts --compression are refused. --dry-run checks every option as a backup does.
            A value that starts with '-' is given as --opt=VALUE (-o=--x) or as a path (-o ./--x).
            ARCHIVE, a file, is replaced only once the backup completed; a FIFO or character device (/dev/null)
            is written in place; a symlink is followed. Directories and block devices are refused.
            DEVICECTL_NOW pins the manifest's creation time (reproducible archives).
            --format mobilesync writes the backup Finder, iTunes and idevicebackup2 make of a device (a device root
            only): DIR gets Info.plist, Manifest.plist, Status.plist, Manifest.db and the files at xx/<SHA-1>, each
            container a domain (AppDomain-, AppDomainGroup-, AppDomainPlugin-<id>), the rest HomeDomain; app
            bundles are never stored (Manifest.plist lists the apps). The engine defaults to computer. DIR is
            written beside itself and renamed into place when complete; an existing DIR is replaced only if it is
            empty or a MobileSync backup. No compression, no -o -.
            --encrypt (mobilesync) encrypts as a device does: every file under its own key, Manifest.db under class 4,
            the keys in a keybag unlocked by the password (PBKDF2-SHA256 10,000,000 rounds, then PBKDF2-SHA1 10,000:
            over a second, once). The password comes from --password-file FILE, DEVICECTL_BACKUP_PASSWORD, or a
            prompt on the terminal, never from the command line. The engine defaults to computer-encrypted. An encrypted
            backup keeps no devicectl-manifest.jsonl (nothing of devicectl's in the clear beside the encrypted files).
            -v lists each stored path as 'tar -cv' does (relative to ROOT, directories ending in '/', escaped as
            'list' shows names), in archive order, on stdout (on stderr with -o -); not with --json. -q prints
            only errors. -v and -q draw no progress bar.
            Example: devicectl backup /tmp/phone -o /tmp/phone.tar.zst
            """
    )

    /// `--engine icloud|computer|computer-encrypted|quick-start` (backup and `exclude check`).
    static let engineOption = OptionSpec(
        ["--engine"], .value(AppleBackupEngine.names),
        help: "Apple's backup engine whose exclusion rules apply (default: icloud; mobilesync: computer).")

    /// The `--engine` given, or nil.
    static func engine(_ arguments: ParsedArguments) throws(UsageError) -> AppleBackupEngine? {
        try arguments.value("--engine", as: AppleBackupEngine.allCases.map(\.rawValue).joined(separator: ", ")) {
            AppleBackupEngine(rawValue: $0)
        }
    }

    static func run(_ arguments: ParsedArguments, _ context: CommandContext) throws -> Int32 {
        let root = arguments.positional(0)!
        let format = try arguments.value("--format", as: "tar or mobilesync") { BackupFormat(rawValue: $0) } ?? .tar
        let (encrypt, iterations) = try encryption(arguments, format: format)
        let engine = try engine(arguments) ?? (encrypt ? .computerEncrypted : format.defaultEngine)
        let patterns = try exclusionPatterns(arguments)
        // A dry run checks every option exactly as the backup would, so what it shows is what runs.
        let archive = arguments.value("--output")
        let (compression, level) = format == .tar
            ? try compressionAndLevel(arguments, archive: archive) : try mobileSyncOutput(arguments, archive: archive)
        let json = arguments.flag("--json")
        if json && archive == "-" {
            throw UsageError("--json prints on standard output, so it cannot be used with -o -", command: spec.name)
        }
        let created = try context.now(arguments)
        if Device.lacksIdentity(at: root) {
            context.console.warn(Device.missingIdentity(at: root).description + "; this backup applies no iOS rules")
        }
        if arguments.flag("--dry-run") {
            return try dryRun(
                root: root, patterns: patterns, engine: engine, archive: archive, format: format,
                compression: compression, arguments, context)
        }
        guard let archive else {
            throw UsageError("missing -o ARCHIVE (use -o - for standard output)", command: spec.name)
        }
        var request = BackupRequest(
            root: root, output: archive == "-" ? .standardOutput : .file(archive), compression: compression,
            level: level, patterns: patterns, created: created, tool: "devicectl \(Devicectl.version)", engine: engine,
            oneFileSystem: arguments.flag("--one-file-system"), format: format)
        if encrypt { request.password = try password(arguments, iterations: iterations, context) }
        // A MobileSync backup is a directory, which a signal handler cannot remove: SIGINT and SIGTERM stop it
        // between members instead, and it removes what it wrote.
        if format == .mobileSync { try ProcessSignals.record() }
        defer { if format == .mobileSync { ProcessSignals.restore() } }
        let summary = try perform(request, archive: archive, arguments, context)
        if summary.deviceRoot {
            record(summary, of: request, archive: archive, engine: engine, format: format, context.console)
        }
        if json {
            var result = Result(summary, root: root, archive: archive, compression: compression)
            result.engine = engine.rawValue
            result.format = format.rawValue
            context.console.result(result)
        } else {
            printSummary(summary, root: root, archive: archive, engine: engine, format: format, context.console)
        }
        return 0
    }

    /// `--encrypt` (only with `--format mobilesync`) and its test-only `--kdf-iterations SHA256,SHA1`.
    static func encryption(
        _ arguments: ParsedArguments, format: BackupFormat
    ) throws(UsageError) -> (encrypt: Bool, iterations: (UInt32, UInt32)?) {
        let encrypt = arguments.flag("--encrypt")
        if encrypt && format != .mobileSync {
            throw UsageError("--encrypt goes with --format mobilesync (a tar archive is not encrypted)", command: spec.name)
        }
        if !encrypt && (arguments.value("--password-file") != nil || arguments.value("--kdf-iterations") != nil) {
            throw UsageError("--password-file and --kdf-iterations go with --encrypt", command: spec.name)
        }
        let iterations = try arguments.value("--kdf-iterations", as: "two counts, SHA256,SHA1 (e.g. 1000,100)") {
            text -> (UInt32, UInt32)? in
            let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 2, let first = UInt32(parts[0]), let second = UInt32(parts[1]), first > 0, second > 0
            else { return nil }
            return (first, second)
        }
        return (encrypt, iterations)
    }

    /// `--exclude GLOB` and the patterns of every `--exclude-from FILE` (standard input at most once).
    static func exclusionPatterns(_ arguments: ParsedArguments) throws -> [ExclusionPattern] {
        var patterns = try arguments.all("--exclude").map { glob throws(UsageError) -> ExclusionPattern in
            guard !glob.isEmpty else { throw UsageError("--exclude needs a non-empty GLOB", command: spec.name) }
            do {
                return try ExclusionPattern(glob)
            } catch {
                throw UsageError("invalid --exclude '\(DeviceValueError.display(glob))': \(error)", command: spec.name)
            }
        }
        let patternFiles = arguments.all("--exclude-from")
        if patternFiles.filter({ $0 == "-" }).count > 1 {
            throw UsageError("standard input can be read once: give --exclude-from - at most once", command: spec.name)
        }
        for file in patternFiles { patterns += try PatternFile.patterns(from: file, command: spec.name) }
        return patterns
    }

    /// The backup's password (`--password-file`, the environment or a prompt) and its derivation counts.
    static func password(
        _ arguments: ParsedArguments, iterations: (UInt32, UInt32)?, _ context: CommandContext
    ) throws -> BackupPassword {
        var password = BackupPassword(
            bytes: try PasswordSource.password(arguments, environment: context.environment, command: spec.name))
        if let (sha256, sha1) = iterations {
            password.sha256Iterations = sha256
            password.sha1Iterations = sha1
        }
        // The derivation is seconds of silence at the device's counts: say so where progress is drawn.
        if context.showsProgress(arguments) {
            context.console.err(
                "devicectl: deriving the backup's keys from the password "
                    + "(\(password.sha256Iterations) rounds of PBKDF2-SHA256: a second or more)")
        }
        return password
    }

    /// Runs the backup with its progress bar and warnings; a failure to write the archive names it.
    static func perform(
        _ request: BackupRequest, archive: String, _ arguments: ParsedArguments, _ context: CommandContext
    ) throws -> BackupSummary {
        var request = request
        request.pinsThreads = try context.pinsThreads()
        // Shown progress gets a percentage: the tree is counted alongside the backup on an idle core (first, with
        // DEVICECTL_THREADS=pinned).
        if context.showsProgress(arguments) { request.counting = try context.pinsThreads() ? .first : .alongside }
        let bar = ProgressBar(
            console: context.console, enabled: context.showsProgress(arguments), label: "backing up",
            environment: context.environment)
        defer { bar.finish() }
        do {
            return try BackupEngine.backup(
                request,
                progress: {
                    bar.update(
                        files: $0.files, bytes: $0.bytes, seconds: $0.seconds, fraction: $0.fraction,
                        total: $0.total?.files, counting: $0.counting)
                },
                warning: { message in
                    bar.finish()
                    context.console.warn(message)
                },
                stored: listing(arguments, context.console, onStderr: archive == "-"))
        } catch BackupError.archive(let failure) {
            bar.finish()
            throw ArchiveWriteFailure(archive: archive, cause: failure.message)
        }
    }

    /// The device's own record of the backup (DeviceLocal is never archived, so this is safe after it). The archive
    /// is complete by now: a source that cannot take the record (a read-only device root) is warned about, never a
    /// failed backup.
    static func record(
        _ summary: BackupSummary, of request: BackupRequest, archive: String, engine: AppleBackupEngine,
        format: BackupFormat, _ console: Console
    ) {
        guard let device = try? Device.open(request.root) else { return }
        do {
            try EventLog(device: device).append(DeviceEvent(
                time: request.created, type: "backup",
                details: [
                    "archive": archive == "-" ? "stdout" : archive, "files": String(summary.counts.files),
                    "bytes": String(summary.counts.bytes), "archiveBytes": String(summary.archiveBytes),
                    "engine": engine.rawValue, "format": format.rawValue,
                ]))
        } catch {
            console.warn(
                "the backup is complete, but it could not be recorded in the device's event log: "
                    + UserMessage.text(for: error))
        }
    }

    /// `--compression` and `--level` checked against each other and against the archive's name.
    static func compressionAndLevel(
        _ arguments: ParsedArguments, archive: String?
    ) throws(UsageError) -> (Compression, Int?) {
        let requested = try arguments.value("--compression", as: "none, gzip, zstd or xz") { Compression(rawValue: $0) }
        let compression = try archive.map { path throws(UsageError) in
            path == "-" ? requested ?? .none : try ArchiveName.compression(for: path, requested: requested)
        } ?? requested ?? .none
        let level = try arguments.value("--level", as: "an integer") { Int($0) }
        if let level {
            guard let levels = compression.levels else {
                throw UsageError("--level needs compression (--compression gzip|zstd|xz)", command: spec.name)
            }
            guard levels.contains(level) else {
                throw UsageError(
                    "--level \(level) is out of range for \(compression.rawValue) "
                        + "(\(levels.lowerBound)-\(levels.upperBound))",
                    command: spec.name)
            }
        }
        return (compression, level)
    }

    /// A MobileSync backup's `-o DIR`: a directory, never standard output, and never compressed.
    private static func mobileSyncOutput(
        _ arguments: ParsedArguments, archive: String?
    ) throws(UsageError) -> (Compression, Int?) {
        if archive == "-" {
            throw UsageError("--format mobilesync writes a directory: give -o DIR, not -o -", command: spec.name)
        }
        if arguments.value("--compression") != nil || arguments.value("--level") != nil {
            throw UsageError(
                "--format mobilesync is not compressed: --compression and --level go with --format tar",
                command: spec.name)
        }
        return (.none, nil)
    }

    // MARK: - Dry run

    private static func dryRun(
        root: String, patterns: [ExclusionPattern], engine: AppleBackupEngine, archive: String?, format: BackupFormat,
        compression: Compression, _ arguments: ParsedArguments, _ context: CommandContext
    ) throws -> Int32 {
        let json = arguments.flag("--json")
        var listed: [DryRunResult.ExcludedPath] = []
        let summary = try BackupEngine.dryRun(
            root: root, patterns: patterns, engine: engine, replacing: archive == "-" ? nil : archive, format: format,
            oneFileSystem: arguments.flag("--one-file-system"),
            excluded: { item in
                // The pattern reason names the --exclude that matched (the first one given, when several do).
                let pattern = item.reasons.contains(.pattern) ? patterns.first { $0.matches(item.path) } : nil
                if json {
                    listed.append(
                        DryRunResult.ExcludedPath(
                            path: item.path, directory: item.kind == .directory,
                            reasons: item.reasons.map(\.rawValue), pattern: pattern?.text))
                } else {
                    // Escaped as `list` shows names: a name holding a newline or an escape sequence stays one line.
                    let shown = ArchiveFormat.name(item.kind == .directory ? item.path + "/" : item.path)
                    let reasons = item.reasons.map { reason in
                        reason == .pattern && pattern != nil
                            ? "pattern " + DeviceValueError.display(pattern!.text).quotedForReason : reason.rawValue
                    }
                    context.console.out("\(shown)  (\(reasons.joined(separator: ", ")))")
                }
            },
            warning: { context.console.warn($0) },
            stored: listing(arguments, context.console, onStderr: false))
        if json {
            context.console.result(
                DryRunResult(
                    root: root, archive: archive, format: format.rawValue, compression: compression.rawValue,
                    deviceRoot: summary.deviceRoot,
                    engine: engine.rawValue, counts: JSONCounts(summary.counts), excluded: JSONExcluded(summary),
                    excludedPaths: listed))
        } else {
            let console = context.console
            console.err(
                "devicectl: dry run of \(root) (engine \(engine)): would back up \(counted(summary.counts.files, "file")) "
                    + "(\(ProgressBar.bytes(summary.counts.bytes))), \(counted(summary.counts.directories, "directory")), "
                    + "\(counted(summary.counts.symlinks, "symlink")), \(counted(summary.counts.hardlinks, "hard link"))")
            console.err("  " + excludedLine(summary))
        }
        return 0
    }

    // MARK: - Output

    /// With `-v`, what prints each stored path (`tar -cv`'s line: a directory ends in `/`, the name escaped as
    /// `list` shows it): on stdout, or on stderr when stdout carries the archive. Without `-v`, nil, so the
    /// engine builds no per-file text.
    private static func listing(
        _ arguments: ParsedArguments, _ console: Console, onStderr: Bool
    ) -> ((StoredPath) -> Void)? {
        guard arguments.flag("--verbose") else { return nil }
        return { item in
            let line = ArchiveFormat.name(item.kind == .directory ? item.path + "/" : item.path)
            if onStderr { console.err(line) } else { console.out(line) }
        }
    }

    private static func printSummary(
        _ summary: BackupSummary, root: String, archive: String, engine: AppleBackupEngine, format: BackupFormat,
        _ console: Console
    ) {
        let target = archive == "-" ? "standard output" : format == .mobileSync ? "\(archive) (MobileSync backup)" : archive
        // The engine is named on a device root, and on any tree when not the default.
        let rules =
            summary.deviceRoot
            ? " (device root: iOS rules applied, engine \(engine))" : engine == .default ? "" : " (engine \(engine))"
        console.err("devicectl: backed up \(root) to \(target)\(rules)")
        console.err(
            "  stored   \(counted(summary.counts.files, "file")) (\(ProgressBar.bytes(summary.counts.bytes))), "
                + "\(counted(summary.counts.directories, "directory")), \(counted(summary.counts.symlinks, "symlink")), "
                + "\(counted(summary.counts.hardlinks, "hard link"))")
        console.err("  " + excludedLine(summary))
        // The archive's own rate and the rate file data was read at are different numbers: name both.
        let seconds = summary.seconds
        var rates = ""
        if seconds > 0 {
            rates = " (\(ProgressBar.bytes(UInt64(Double(summary.archiveBytes) / seconds)))/s); file data read at "
                + "\(ProgressBar.bytes(UInt64(Double(summary.counts.bytes) / seconds)))/s"
        }
        console.err(
            "  \(format == .mobileSync ? "backup   " : "archive  ")\(ProgressBar.bytes(summary.archiveBytes)) written in \(NumberText.fixed(seconds, places: 2)) s"
                + rates)
    }

    /// `excluded 3 files (1.2 MB), 2 directories (contents not measured): ios-caches 2 directories, ...`.
    /// A skipped directory is never walked, so its bytes are unknown: they are said to be, never shown as 0 B.
    static func excludedLine(_ summary: BackupSummary) -> String {
        let excluded = summary.excluded
        let directories = summary.excludedDirectories
        var line = "excluded \(counted(excluded.files - directories, "file")) (\(ProgressBar.bytes(excluded.bytes)))"
        if directories > 0 { line += ", \(counted(directories, "directory")) (contents not measured)" }
        let reasons = ExclusionReason.allCases.compactMap { reason -> String? in
            guard let count = excluded.byReason[reason.rawValue] else { return nil }
            let reasonDirectories = summary.excludedDirectoriesByReason[reason.rawValue] ?? 0
            var parts: [String] = []
            if count.files > reasonDirectories {
                parts.append("\(counted(count.files - reasonDirectories, "file")) (\(ProgressBar.bytes(count.bytes)))")
            }
            if reasonDirectories > 0 { parts.append(counted(reasonDirectories, "directory")) }
            return "\(reason.rawValue) " + parts.joined(separator: " and ")
        }
        if !reasons.isEmpty { line += ": " + reasons.joined(separator: ", ") }
        return line
    }

    /// `1 file`, `2 files`, `1 directory`, `3 directories`.
    static func counted(_ value: UInt64, _ noun: String) -> String {
        let plural = noun.hasSuffix("y") ? noun.dropLast() + "ies" : noun + "s"
        return "\(ProgressBar.count(value)) " + (value == 1 ? noun : plural)
    }
}

extension String {
    /// `'*.log'` as a dry-run reason shows a pattern (already escaped for display).
    fileprivate var quotedForReason: String { "'" + self + "'" }
}
