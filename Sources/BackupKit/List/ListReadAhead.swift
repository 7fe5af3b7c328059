// ListReadAhead: `list`'s reading on a thread of its own: members handed to the caller in order, in batches.
import Glibc
import SystemKit
import TarKit

/// Reads a source's members on a worker thread and hands them over in order, a batch at a time, so that what the
/// caller does with each member (`list` formats and prints a line) overlaps the reading (libarchive's parsing and
/// name conversion, the framing audit, the manifest). The worker also reads the manifest member, by restore's rules.
///
/// A failure of the read (damage, a limit, an interruption) ends the worker after it has handed over every member
/// read before it: the caller gets those first, then the failure from `finish()`. A caller that stops early
/// (its own failure) calls `cancel()`. Memory stays at the pool's batches (`HandOff`).
final class ListReadAhead: @unchecked Sendable {
    /// Members read, in order, and the progress after the last of them.
    final class Batch {
        var members: [ArchiveReader.Member] = []
        var progress: ReadProgress?
    }

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

    func recycle(_ batch: Batch) {
        batch.members.removeAll(keepingCapacity: true)
        batch.progress = nil
        handOff.recycle(batch)
    }

    /// Waits for the worker and closes the source; the manifest summary, or the read's failure.
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
                if batch == nil {
                    guard let spare = handOff.takeSpare() else { return }  // cancelled
                    batch = spare
                    batchStarted = MonotonicClock.seconds()
                }
                batch!.members.append(member)
                if member.kind == .regular {
                    files += 1
                    bytes &+= UInt64(max(0, member.size))
                }
                try readManifest(member)  // reading its data, the source may hand the batch over (`handOverIfDue`)
                handOverIfDue()
            }
            outcome.format = source.formatName
            outcome.filters = source.filterNames
            outcome.archiveBytes = source.inputBytes
        } catch {
            failure = error
        }
    }

    /// Reads `member`'s data when it is the manifest (the first one only), by restore's rules.
    private func readManifest(_ member: ArchiveReader.Member) throws {
        guard member.kind == .regular, outcome.header == nil,
            MemberPath.names(member.pathBytes, RestoreSession.manifestName)
        else { return }
        let check = try ManifestCheck(problemLimit: 1)
        do {
            while let block = try source.readBlock() { try check.feed(block.bytes) }
            let result = try check.finish()
            outcome.header = result.header
            outcome.totals = result.totals
            outcome.manifestProblem = result.problems.first
        } catch RestoreError.badManifest(let problem) {
            outcome.manifestProblem = problem.description
            try source.skipData()
        } catch let error as RestoreError {
            outcome.manifestProblem = error.message
            try source.skipData()
        }
    }
}
