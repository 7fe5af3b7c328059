// BatchPipe: a fixed pool of byte batches passed from the reading thread to the writing thread.
import Synchronization
import SystemKit

/// The backup's batches on SystemKit's `HandOff` (bounded, ordered; memory stays at `count × size` bytes),
/// and the formatting thread that drains them. With `drainInline(_:)` there is no consumer thread: `submit`
/// drains each batch on the producer's thread, through the same hand-off.
///
/// A sleeping side is woken only once `wakeAfter` batches are ready for it (or at the end), not for each one
/// (see `HandOff`).
final class BatchPipe: @unchecked Sendable {
    private let handOff: HandOff<Batch, Never>
    let count: Int
    /// Whether the formatting thread waits for a CPU while it could run (it shares a core): set by the formatting
    /// thread (`RunQueueDelay`), read by the reading thread when it decides where to hash (`HashPlacement.byBacklog`).
    private let formatterWaitsForCPU = Atomic<Bool>(false)
    /// Set by `drainInline`: the consumer, called on the producer's thread (then no thread waits here).
    private var inline: ((Batch) -> Void)?
    /// The formatting thread, when there is one (joined by `waitForConsumer`).
    private var worker: WorkerThread?

    init(count: Int, size: Int, wakeAfter: Int) {
        handOff = HandOff(items: (0..<count).map { _ in Batch(capacity: size) }, wakeAfter: wakeAfter)
        self.count = count
    }

    // MARK: - Producer

    /// An empty batch to fill; nil once the pipe is cancelled.
    func takeEmpty() -> Batch? { handOff.takeSpare() }

    /// Whether `takeEmpty` would return at once: false while every batch is full and waiting for the consumer.
    var hasSpare: Bool { handOff.hasSpare }

    /// The batches free to fill now (the pool's `count` while the consumer holds none).
    var spareCount: Int { handOff.spareCount }

    /// Nanoseconds each thread has slept so far waiting for the other: the reader in `takeEmpty`, the formatter in
    /// `takeFull` (see `HashShare`).
    var waited: (reader: UInt64, formatter: UInt64) {
        let waited = handOff.waited
        return (waited.producer, waited.consumer)
    }

    /// Whether the formatting thread waited for a CPU over its last interval (see `RunQueueDelay`).
    var formatterIsContended: Bool { formatterWaitsForCPU.load(ordering: .relaxed) }

    /// Whether the producer waits in `takeEmpty` for the consumer (tests wait for this state).
    var producerIsWaiting: Bool { handOff.producerIsWaiting }

    /// Hands a filled batch to the consumer (or drains it here, inline, and returns it to the pool).
    func submit(_ batch: Batch) {
        guard handOff.submit(batch), let inline, let queued = handOff.next() else { return }
        inline(queued)
        recycle(queued)
    }

    /// Makes the producer drain its own batches with `drain` (before the first batch; no consumer thread).
    func drainInline(_ drain: @escaping (Batch) -> Void) {
        inline = drain
    }

    /// No more batches will come.
    func finish() { handOff.close() }

    // MARK: - Consumer

    /// Starts the consumer thread (1 MiB of stack), which loops on `takeFull` and `recycle`. `spreading`: the
    /// consumer keeps off the CPU the calling (reading) thread runs on now, when it may run on two or more (best
    /// effort). Two threads of a pipeline that hand batches to each other look like one task to the scheduler, which
    /// keeps both on one core while the other core runs a busy process; apart, each gets a core or a share of one.
    func startConsumer(spreading: Bool = false, _ body: @escaping @Sendable () -> Void) throws(SystemError) {
        worker = try WorkerThread(stackSize: 1 << 20, offCallersCPU: spreading, body)
    }

    /// Records whether the formatting thread waited for a CPU over its last interval (on that thread).
    func setFormatterContended(_ contended: Bool) {
        formatterWaitsForCPU.store(contended, ordering: .relaxed)
    }

    /// The next filled batch, in submission order; nil when finished and drained, or cancelled.
    func takeFull() -> Batch? { handOff.next() }

    /// Returns a drained batch to the pool.
    func recycle(_ batch: Batch) {
        batch.closeCarried()
        batch.used = 0
        handOff.recycle(batch)
    }

    /// Waits until the consumer thread has stopped (at once when it drains inline).
    func waitForConsumer() { worker.take()?.join() }

    // MARK: - Either side

    /// Stops both sides: the producer's `takeEmpty` and the consumer's `takeFull` return nil.
    func cancel() { handOff.cancel() }

    var isCancelled: Bool { handOff.isStopped }
}
