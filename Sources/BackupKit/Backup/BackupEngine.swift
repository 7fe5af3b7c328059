// BackupEngine: `devicectl backup` and `--dry-run`: walk, exclude, archive, manifest, atomic rename.
import DeviceKit
import Foundation
import Glibc
import SystemKit
import TarKit

/// Runs backups. One walker and one exclusion evaluator serve the backup and the dry run alike.
public enum BackupEngine {
    /// Batches in flight between the reading and the writing thread, and their size: 8 MiB in all, so that while
    /// one thread hashes a large file (a video: several milliseconds of SHA-256 that cannot be split) the other has
    /// work queued or room to queue it. Like-for-like bench tree, alternating rounds (2026-12-05): 64 batches 0.94x
    /// the 8 of before (15 rounds; 32 0.96x, 128 0.93x), with a busy loop on one CPU 0.83x (11 rounds); peak RSS
    /// 19.6 -> 26.5 MiB. A sleeping thread is woken once 4 are ready for it (see `BatchPipe`): on a loaded
    /// machine that made backups 15% faster than 4 × 256 KiB with a wake per batch.
    static let batchCount = 64
    /// A MobileSync backup keeps 8 (1 MiB): its content-file writers queue 4 MiB each and its rows thread has an 8 MiB
    /// page cache, and with 64 its peak RSS at 200,000 files was 61.2 MiB against 53.9 (target 64) for 0.96x of the
    /// time, within the noise (11 alternating rounds; 16 batches 0.98x).
    static let mobileSyncBatchCount = 8
    /// A MobileSync backup reads its files of at least 1 MiB after the walk (`ArchivingVisitor.maximumDeferred` of
    /// them at most): Manifest.db, complete once every member is begun, is closed (and encrypted: one CBC chain over
    /// the whole file, alone at the end) on the rows thread while their data is written.
    static let mobileSyncDeferFrom: UInt64 = 1 << 20
    static let batchSize = 128 << 10
    static let batchWake = 4

    /// Whether the reading thread also formats (one batch, drained as it fills), leaving the second core to
    /// the compressor's thread. With three busy threads on two cores the scheduler often put the formatter
    /// beside the compressor while the reader's core idled (`perf sched`: 115 ms idle in a 474 ms zstd
    /// backup of 40k files); formatting inline made that backup 10% faster. A plain tar has no compressor
    /// thread, so there the formatter keeps a thread of its own.
    static func formatsInline(_ compression: Compression) -> Bool { compression != .none }

    /// Archives `request.root` to `request.output`.
    /// - Parameters:
    ///   - progress: called about ten times a second with counts, and once at the end.
    ///   - warning: receives each warning (skipped sockets, FIFOs, devices, undecodable names ...).
    ///   - stored: receives every stored path in archive order, on the calling thread (the manifest, written
    ///     last, is not one); nil (the default) builds no per-file text at all.
    /// - Returns: what was stored and skipped.
    /// - Throws: `BackupError` naming the path; no file is left at the destination unless the backup completed.
    public static func backup(
        _ request: BackupRequest, progress: ((BackupProgress) -> Void)? = nil, warning: @escaping (String) -> Void,
        stored: ((StoredPath) -> Void)? = nil
    ) throws -> BackupSummary {
        try backup(request, progress: progress, warning: warning, afterRead: nil, stored: stored)
    }

    /// Test hooks: `afterRead` runs after each file's data is read, before its status is rechecked;
    /// `duringRead` after each read that leaves more of the file to read (path, bytes read so far);
    /// `hashing` pins where SHA-256 runs (by default `HashPlacement.forTar`); `formatterGate` runs on the formatting
    /// thread before it drains each batch (a test holds the thread there); `batches` sets the pipe's pool (tests of
    /// the hashing policy, with trees a few times the pool they set); `handOver` the files the formatting
    /// thread reads itself (nil: none).
    static func backup(
        _ request: BackupRequest, progress: ((BackupProgress) -> Void)?, warning: @escaping (String) -> Void,
        afterRead: ((String) -> Void)?, duringRead: ((String, UInt64) -> Void)? = nil, hashing: HashPlacement? = nil,
        stored: ((StoredPath) -> Void)? = nil, formatterGate: (@Sendable (BatchPipe) -> Void)? = nil,
        batches: Int = BackupEngine.batchCount, handOver: HandOverPolicy? = .standard
    ) throws -> BackupSummary {
        if request.format == .mobileSync {
            return try backupMobileSync(
                request, progress: progress, warning: warning, afterRead: afterRead, duringRead: duringRead,
                hashing: hashing, stored: stored)
        }
        // Where the archive goes is settled before the device is read or locked: a directory, a block device or a
        // missing directory fails at once, and a closed standard output cannot be taken by the lock file.
        let (archive, target) = try resolve(request.output)
        try checkRoot(request.root)
        if let level = request.level {
            guard let levels = request.compression.levels, levels.contains(level) else {
                throw BackupError.output("compression level \(level) is not valid for \(request.compression.rawValue)")
            }
        }
        // A FIFO is opened (which waits for its reader) before the device is locked, so waiting holds no lock.
        var stream: StreamArchiveFile?
        if case .stream(let resolved)? = target {
            stream = try StreamArchiveFile(path: resolved, shown: ArchiveTarget.shown(archive, resolved))
        }
        let deviceRoot = Device.isDevice(at: request.root)
        // On a device, hold its lock while reading: devicectl commands that change the device (install,
        // launch, defaults write ...) wait, so the archive is one consistent state. Best effort: a reader
        // without write access to DeviceLocal backs up without it.
        let lock = deviceRoot ? try? Device.open(request.root).lock(wait: true) : nil
        defer { try? lock?.release() }
        let header = try DeviceInventory.header(
            root: request.root, deviceRoot: deviceRoot, created: Timestamp.format(request.created),
            tool: request.tool, engine: request.engine)

        let (destination, output) = try open(archive: archive, target: target, stream: stream)
        do {
            // The format stage: the pax tar writer (the only format so far).
            let sink = try TarSink(
                descriptor: destination.descriptor, compression: request.compression, level: request.level,
                name: destination.name)
            let run = BackupRun(
                request: request, deviceRoot: deviceRoot, header: header, spillDirectory: destination.spillDirectory,
                ownArchives: ownArchives(output), progress: progress, warning: warning, afterRead: afterRead,
                duringRead: duringRead,
                placement: hashing ?? .forTar(compression: request.compression, pinned: request.pinsThreads),
                stored: stored, formatterGate: formatterGate, batches: batches, handOver: handOver)
            return try run.archive(into: sink) {
                try stream?.finish()
                try output?.commit()
            }
        } catch {
            output?.discard()
            throw error
        }
    }

    /// The user's name for `output` and, for a path, what it resolves to.
    private static func resolve(_ output: BackupOutput) throws -> (archive: String, target: ArchiveTarget?) {
        switch output {
        case .file(let path):
            return (path, try ArchiveTarget.resolve(path))
        case .standardOutput:
            if fcntl(STDOUT_FILENO, F_GETFD) == -1 {
                throw BackupError.output("standard output is closed; run with it open or use -o FILE")
            }
            return ("standard output", nil)
        }
    }

    /// Opens the destination: the stream already opened, a new temporary file beside the archive (returned, to
    /// be committed or discarded), or standard output (never a terminal).
    private static func open(
        archive: String, target: ArchiveTarget?, stream: StreamArchiveFile?
    ) throws -> (BackupDestination, AtomicArchiveFile?) {
        if let stream {
            let destination = BackupDestination(
                descriptor: stream.descriptor, spillDirectory: temporaryDirectory, name: stream.shown)
            return (destination, nil)
        }
        if case .replace(let resolved)? = target {
            let file = try AtomicArchiveFile(destination: resolved)
            let name = ArchiveTarget.shown(archive, resolved)
            return (BackupDestination(descriptor: file.descriptor, spillDirectory: file.directory, name: name), file)
        }
        if isatty(STDOUT_FILENO) == 1 {
            throw BackupError.output("refusing to write an archive to a terminal; redirect standard output or use -o FILE")
        }
        return (BackupDestination(descriptor: STDOUT_FILENO, spillDirectory: temporaryDirectory, name: archive), nil)
    }

    /// The files the walk passes over: the temporary archive being written, and the regular file at the
    /// destination that it replaces (when ROOT holds them).
    private static func ownArchives(_ output: AtomicArchiveFile?) -> [IgnoredFile] {
        guard let output else { return [] }
        var files = [IgnoredFile(device: output.identity.0, inode: output.identity.1, reason: .ownArchive)]
        if let replaced = replacedArchive(output.destination) { files.append(replaced) }
        return files
    }

    /// The regular file at `path` (for a MobileSync backup, the directory), which a backup to `path` replaces.
    static func replacedArchive(_ path: String, format: BackupFormat = .tar) -> IgnoredFile? {
        var status = stat()
        let kind = format == .tar ? S_IFREG : S_IFDIR
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == kind else { return nil }
        return IgnoredFile(device: UInt64(status.st_dev), inode: UInt64(status.st_ino), reason: .replacedArchive)
    }

    private static var temporaryDirectory: String { ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp" }

    /// Walks `root` as a backup would, reading no file data and writing nothing. `excluded` receives
    /// every skipped path (relative to ROOT) with all its reasons, in walk order; `stored`, when given, every
    /// path the backup would store, in the same order. `archive`: the `-o` file, which the
    /// backup would replace and so not store.
    public static func dryRun(
        root: String, patterns: [ExclusionPattern] = [], engine: AppleBackupEngine = .default,
        replacing archive: String? = nil, format: BackupFormat = .tar, oneFileSystem: Bool = false, excluded: @escaping (ExcludedPath) -> Void,
        warning: @escaping (String) -> Void, stored: ((StoredPath) -> Void)? = nil
    ) throws -> BackupSummary {
        try checkRoot(root)
        let start = MonotonicClock.seconds()
        let deviceRoot = Device.isDevice(at: root)
        let visitor = DryRunVisitor(report: excluded, warn: warning, stored: stored)
        let rules = ExclusionRules(deviceRoot: deviceRoot, patterns: patterns, engine: engine)
        let replaced = archive.flatMap { replacedArchive($0, format: format) }.map { [$0] } ?? []
        try TreeWalker(root: root, rules: rules, visitor: visitor, ignoring: replaced, oneFileSystem: oneFileSystem)
            .run()
        let tally = visitor.tally
        return BackupSummary(
            counts: tally.counts, excluded: tally.excluded, excludedDirectories: tally.excludedDirectories,
            excludedDirectoriesByReason: tally.excludedDirectoriesByReason, archiveBytes: 0,
            seconds: MonotonicClock.seconds() - start, warnings: visitor.warnings, deviceRoot: deviceRoot)
    }

    static func checkRoot(_ root: String) throws {
        do {
            var status = stat()
            try SystemError.check("stat", path: root) { stat(root, &status) }
            guard status.st_mode & S_IFMT == S_IFDIR else { throw BackupError.rootNotDirectory(root, nil) }
        } catch let error as SystemError {
            throw BackupError.rootNotDirectory(root, error)
        }
    }
}
