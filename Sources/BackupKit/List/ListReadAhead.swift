// ListReadAhead: `list`'s reading on a thread of its own: members handed to the caller in order, in batches.
import Glibc
import SystemKit
import TarKit

/// Reads a source's members on a worker thread and hands them over in order, a batch at a time, so that what the
/// caller does with each member (`list` formats and prints a line) overlaps the reading (libarchive's parsing and
/// name conversion, the framing audit). The manifest member's data (the first member of that name) follows in the
/// batches, after the member itself: the caller checks its lines (`ManifestCheck`) while the worker reads on and
/// hashes the bytes (`ManifestPrefixDigest`, `manifestDigest`): the check, hashing included, ran alone at the end of
/// the read, a seventh of a list.
///
/// A failure of the read (damage, a limit, an interruption) ends the worker after it has handed over every member
/// read before it: the caller gets those first, then the failure from `finish()`. A caller that stops early
/// (its own failure) calls `cancel()`. Memory stays at the pool's batches (`HandOff`).
final class ListReadAhead: @unchecked Sendable {
    /// Members read, in order, and the progress after the last of them; then the next bytes of the manifest's data.
    final class Batch {
        var members: [ArchiveReader.Member] = []
        var progress: ReadProgress?
        /// The manifest member is among `members`: its data starts (in this batch's `manifest` or a later one's).
        var manifestStarts = false
        /// The manifest's data in order, `manifestChunk` bytes a batch at most (after the batch's members).
        var manifest: [UInt8] = []
    }

    /// The manifest's bytes a batch carries at most (the pool's four batches: 1 MiB at most in flight).
    static let manifestChunk = 256 << 10

    /// Members a batch holds at most (1,024: each wake of the caller cost the reading thread about 20 us in this VM,
    /// 2% of a list at 256 a batch; 0.97x the time of 256); a batch older than `batchSeconds` is handed over when its
    /// next member is read or the source next reads its input (`onRead`), so a long member or a slow input (a pipe)
    /// does not hold back the members before it.
    static let batchMembers = 1024
    static let batchSeconds = 0.1

    /// The source, opened by `init`; the worker alone uses it until `finish()` or `cancel()` closes it (then nil).
    private var source: (any FormatSource)!
    private let wantsProgress: Bool
    /// The caller is woken for each batch (a batch is already up to 1,024 members: about 30 wakes for the bench's
    /// 28,000; a batch handed over while the input stalls must reach the caller at once).
    private let handOff = HandOff<Batch, Never>(items: (0..<4).map { _ in Batch() }, wakeAfter: 1)
    private var thread: WorkerThread?
    /// The worker's alone: the batch being filled, when it got its first member, and the counts for the progress.
    private var batch: Batch?
    private var batchStarted = 0.0
    private var started = 0.0
    private var files: UInt64 = 0
    private var bytes: UInt64 = 0
    /// Written by the worker; read by the caller once the worker has ended (`finish`).
    private var outcome = ListSummary()
    private var prefixDigest: ManifestPrefixDigest?
    /// The digest of the manifest's bytes before its last line (`ManifestPrefixDigest`), once `finish` has returned;
    /// nil when there was no manifest.
    private(set) var manifestDigest: String?
    private var failure: (any Error)?

    /// Opens the source with `open` and starts reading it on the worker. The source is given, in place of
    /// `interruption`, one that also answers once the caller has cancelled, and `onRead`, which it calls as it reads
    /// its input: on the worker, and while `open` runs on this thread before the worker starts (no batch yet then).
    init(
        progress wantsProgress: Bool, interruption: @escaping @Sendable () -> Int32?,
        open: (
            _ interruption: @escaping @Sendable () -> Int32?, _ onRead: @escaping @Sendable () -> Void
        ) throws -> any FormatSource
    ) throws {
        self.wantsProgress = wantsProgress
        let handOff = self.handOff
        // A worker waiting on a stalled pipe stops once cancelled, with a signal number no one reports: the
        // caller's own failure is the one thrown.
        source = try open({ handOff.isStopped ? SIGPIPE : interruption() }, { [unowned self] in handOverIfDue() })
        thread = try WorkerThread { [self] in read() }
    }

    deinit {
        cancel()
    }

    /// The next batch, in order; nil once the worker has handed over everything. Give it back with `recycle`.
    func next() -> Batch? {
        handOff.next()
    }

    /// Gives `batch` back to the worker, which empties it when it takes it again: the members' memory, which the
    /// worker allocated, is freed on its thread (into its own malloc arena, without that arena's lock).
    func recycle(_ batch: Batch) {
        handOff.recycle(batch)
    }

    /// Waits for the worker and closes the source; the format and size (the caller reads the manifest), or the
    /// read's failure.
    func finish() throws -> ListSummary {
        end()
        if let failure { throw failure }
        return outcome
    }

    /// Stops the worker (at its next batch, or its next poll of the input) and waits for it; closes the source.
    func cancel() {
        handOff.cancel()
        end()
    }

    /// Joins the worker and closes the source (read only: a failed close loses nothing), once.
    private func end() {
        thread.take()?.join()
        try? source?.close()
        source = nil
    }

    // MARK: - Worker

    /// On the worker, after each member and each time the source is about to read its input or has waited 0.1 s
    /// for it: a full batch, or one that has waited `batchSeconds` (its next member may be far off: a long member's
    /// data, a slow input), goes to the caller now.
    private func handOverIfDue() {
        guard let waiting = batch,
            waiting.members.count >= Self.batchMembers
                || MonotonicClock.seconds() - batchStarted >= Self.batchSeconds
        else { return }
        handOver()
    }

    /// The batch goes to the caller, with the progress so far.
    private func handOver() {
        guard let waiting = batch else { return }
        batch = nil
        if wantsProgress { waiting.progress = ReadProgress(files: files, bytes: bytes, of: source, since: started) }
        handOff.submit(waiting)
    }

    private func read() {
        started = MonotonicClock.seconds()
        defer {
            handOver()
            handOff.close()
        }
        do {
            while let member = try source.next() {
                guard fillingBatch() else { return }  // cancelled
                batch!.members.append(member)
                if member.kind == .regular {
                    files += 1
                    bytes &+= UInt64(max(0, member.size))
                }
                try readManifest(member)  // reading its data, the source may hand the batch over (`handOverIfDue`)
                handOverIfDue()
            }
            manifestDigest = prefixDigest?.finish()
            outcome.format = source.formatName
            outcome.filters = source.filterNames
            outcome.archiveBytes = source.inputBytes
        } catch {
            failure = error
        }
    }

    /// The batch being filled, taken from the pool when there is none; false once cancelled.
    private func fillingBatch() -> Bool {
        if batch != nil { return true }
        guard let spare = handOff.takeSpare() else { return false }
        spare.members.removeAll(keepingCapacity: true)
        spare.progress = nil
        spare.manifestStarts = false
        spare.manifest.removeAll(keepingCapacity: true)
        batch = spare
        batchStarted = MonotonicClock.seconds()
        return true
    }

    /// Hands `member`'s data over, and hashes it, when it is the manifest (the first member of that name),
    /// `manifestChunk` bytes a batch; the member is already in the batch being filled.
    private func readManifest(_ member: ArchiveReader.Member) throws {
        guard member.kind == .regular, prefixDigest == nil,
            MemberPath.names(member.pathBytes, RestoreSession.manifestName)
        else { return }
        let digest = try ManifestPrefixDigest()
        prefixDigest = digest
        batch?.manifestStarts = true
        while let block = try source.readBlock() {
            digest.update(block.bytes)
            var rest = block.bytes[...]
            while !rest.isEmpty {
                guard fillingBatch() else { return }  // cancelled
                let take = min(rest.count, Self.manifestChunk - batch!.manifest.count)
                batch!.manifest.append(contentsOf: UnsafeRawBufferPointer(rebasing: rest.prefix(take)))
                rest = rest.dropFirst(take)
                if batch!.manifest.count == Self.manifestChunk { handOver() }
            }
        }
    }
}
