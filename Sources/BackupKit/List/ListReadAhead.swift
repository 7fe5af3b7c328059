// ListReadAhead: `list`'s reading on a thread of its own: members handed to the caller in order, in batches.
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

    /// Members a batch holds at most; a batch older than `batchSeconds` is handed over when its next member is read,
    /// so a slow input (a pipe) still shows its members as they come.
    static let batchMembers = 256
    static let batchSeconds = 0.1

    private let source: any FormatSource
    private let wantsProgress: Bool
    private let handOff = HandOff<Batch, Never>(items: (0..<4).map { _ in Batch() }, wakeAfter: 2)
    private var thread: WorkerThread?
    /// Written by the worker; read by the caller once the worker has ended (`finish`).
    private var outcome = ListSummary()
    private var failure: (any Error)?

    /// Starts reading `source`, which the worker alone uses until `finish()` or `cancel()` returns.
    init(source: any FormatSource, progress wantsProgress: Bool) throws(SystemError) {
        self.source = source
        self.wantsProgress = wantsProgress
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

    /// Waits for the worker; the manifest summary, or the read's failure.
    func finish() throws -> ListSummary {
        thread.take()?.join()
        if let failure { throw failure }
        return outcome
    }

    /// Stops the worker (at its next batch) and waits for it.
    func cancel() {
        handOff.cancel()
        thread.take()?.join()
    }

    // MARK: - Worker

    private func read() {
        let started = RestoreSession.monotonicSeconds()
        var files: UInt64 = 0
        var bytes: UInt64 = 0
        var batch: Batch?
        var batchStarted = started
        defer {
            if let batch, !batch.members.isEmpty { handOff.submit(batch) }
            handOff.close()
        }
        do {
            while let member = try source.next() {
                if batch == nil {
                    guard let spare = handOff.takeSpare() else { return }  // cancelled
                    batch = spare
                    batchStarted = RestoreSession.monotonicSeconds()
                }
                batch!.members.append(member)
                if member.kind == .regular {
                    files += 1
                    bytes &+= UInt64(max(0, member.size))
                }
                if wantsProgress { batch!.progress = ReadProgress(files: files, bytes: bytes, of: source, since: started) }
                try readManifest(member)
                if batch!.members.count >= Self.batchMembers
                    || RestoreSession.monotonicSeconds() - batchStarted >= Self.batchSeconds
                {
                    handOff.submit(batch!)
                    batch = nil
                }
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
