// BatchPipe: a fixed pool of byte batches passed from the reading thread to the writing thread.
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

    /// Starts the consumer thread (1 MiB of stack), which loops on `takeFull` and `recycle`.
    func startConsumer(_ body: @escaping @Sendable () -> Void) throws(SystemError) {
        worker = try WorkerThread(stackSize: 1 << 20, body)
    }

    /// The next filled batch, in submission order; nil when finished and drained, or cancelled.
    func takeFull() -> Batch? { handOff.next() }

    /// Returns a drained batch to the pool.
    func recycle(_ batch: Batch) {
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
