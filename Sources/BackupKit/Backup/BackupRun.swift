// BackupRun: one backup's pipeline once the destination is open: walk, exclusion, batches, the format sink.
import SystemKit
import TarKit

/// The stages of one backup after its destination is open. The reading thread walks (`TreeWalker`, evaluating
/// `ExclusionRules`), reads and packs batches (`ArchivingVisitor`); the formatting thread (`BatchConsumer`, or
/// the reading thread itself for a compressed archive: `BackupEngine.formatsInline`) hands each member to the
/// format sink, hashes and builds the manifest, which the sink receives last.
struct BackupRun {
    let request: BackupRequest
    let deviceRoot: Bool
    let header: Manifest.Header
    let spillDirectory: String
    /// The temporary archive file and the archive it replaces, which the walk must not archive.
    let ownArchives: [IgnoredFile]
    let progress: ((BackupProgress) -> Void)?
    let warning: (String) -> Void
    let afterRead: ((String) -> Void)?
    let duringRead: ((String, UInt64) -> Void)?
    let placement: HashPlacement
    /// Receives each stored path (`backup -v`); nil: nothing is built per file.
    let stored: ((StoredPath) -> Void)?
    /// Tests only: runs on the formatting thread before it drains each batch.
    var formatterGate: (@Sendable (BatchPipe) -> Void)? = nil
    /// The pipe's pool (`BackupEngine.batchCount`; tests set a smaller one).
    var batches = BackupEngine.batchCount
    /// Files of at least this size are read after the walk (`ArchivingVisitor`; a format that stores members in
    /// order never sets it); nil: none.
    var deferFrom: UInt64? = nil
    /// The files the formatting thread reads (`ArchivingVisitor`'s hand-over) when it is a thread of its own and
    /// hashes; nil: none.
    var handOver: HandOverPolicy? = .standard

    /// The count behind the progress reports' total, as `request.counting` asks.
    private func scanner(_ rules: ExclusionRules) -> BackupScanner? {
        switch request.counting {
        case .off:
            return nil
        case .alongside:
            return BackupScanner(root: request.root, rules: rules)
        case .first:
            return BackupScanner(counted: BackupScanner.count(root: request.root, rules: rules))
        }
    }

    /// Archives the tree into `sink`, then the manifest; `commit` runs once the sink has written everything.
    func archive<Sink: FormatSink>(into sink: Sink, commit: () throws -> Void) throws -> BackupSummary {
        // No digest anywhere (a MobileSync backup): no file line, no members digest; the manifest is its header alone.
        let headerOnly = placement == .nowhere
        let manifest = ManifestWriter(spillDirectory: spillDirectory)
        let inline = BackupEngine.formatsInline(request.compression)
        let pipe = BatchPipe(
            count: inline ? 1 : batches, size: BackupEngine.batchSize,
            wakeAfter: BackupEngine.batchWake)
        let hasher = try FileHasher(manifest: manifest, hashes: !headerOnly)
        let members = headerOnly ? nil : try Manifest.MemberDigest()
        let consumer = BatchConsumer(
            sink: sink, hasher: hasher, pipe: pipe, members: members, root: request.root, gate: formatterGate,
            watchesRunQueue: placement == .byBacklog)
        let rules = ExclusionRules(deviceRoot: deviceRoot, patterns: request.patterns, engine: request.engine)
        let scanner = progress == nil ? nil : scanner(rules)
        defer { scanner?.stop() }
        let visitor = try ArchivingVisitor(
            pipe: pipe, progress: ProgressThrottle(progress, scanner: scanner), warn: warning,
            afterRead: afterRead, duringRead: duringRead, placement: placement, stored: stored, deferFrom: deferFrom,
            handsOver: inline || headerOnly ? nil : handOver)
        if inline {
            consumer.runInline()
        } else {
            do { try consumer.start() } catch { throw BackupError.system(error) }
        }
        do {
            try TreeWalker(root: request.root, rules: rules, visitor: visitor, ignoring: ownArchives,
                oneFileSystem: request.oneFileSystem).run()
            try visitor.readDeferred()
            visitor.finish()
        } catch {
            pipe.cancel()
            pipe.waitForConsumer()
            // When the writer stopped first, its error is the cause.
            if let failure = consumer.error { throw failure }
            throw error
        }
        pipe.waitForConsumer()
        scanner?.stop()
        if let failure = consumer.error { throw failure }

        do {
            try manifest.finish(
                header: header, totals: visitor.tally.totals, members: members, created: request.created, to: sink)
            try sink.finish()
        } catch let error as SystemError {
            throw BackupError.system(error)
        }
        for note in sink.notes { warning(note) }
        let sparseNote = Self.sparseNote(visitor.tally.sparseBytes, format: request.format)
        if let sparseNote { warning(sparseNote) }
        try commit()
        visitor.finishProgress()
        let tally = visitor.tally
        return BackupSummary(
            counts: sink.storedCounts ?? tally.counts, excluded: tally.excluded,
            excludedDirectories: tally.excludedDirectories,
            excludedDirectoriesByReason: tally.excludedDirectoriesByReason,
            archiveBytes: sink.bytesWritten,
            seconds: visitor.elapsed, warnings: visitor.warnings + sink.notes.count + (sparseNote == nil ? 0 : 1),
            deviceRoot: deviceRoot, filesHashedByReader: tally.filesHashedByReader)
    }

    /// A tar whose sparse files hold more (holes included) than a reader accepts by default says so: restore refuses
    /// it, verify and list need `--max-bytes`.
    static func sparseNote(_ bytes: UInt64, format: BackupFormat) -> String? {
        let cap = ArchiveReader.Options().maxSparseBytes
        guard format == .tar, bytes > cap else { return nil }
        return "the archive's sparse files hold \(bytes) bytes with their holes, more than the \(cap) devicectl "
            + "restore accepts; verify and list it with --max-bytes \(bytes)"
    }
}
