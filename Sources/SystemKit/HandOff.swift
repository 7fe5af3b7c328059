// HandOff: the one bounded hand-off between a producer thread and a consumer thread (a pool of reusable items).
//
// The producer takes a spare item, fills it and submits it; the consumer takes the next submitted item (in
// submission order), drains it and recycles it to the pool. Memory stays at the pool's items whatever the
// input: a side that is ahead waits for the other. Either side can stop both: `fail` (the first failure is
// kept for the other side to report) or `cancel`. Used by the backup's batches (`BatchPipe`), the compressor's
// blocks (`StreamCompressor`) and the restore's staging writes (`StagingPipeline`).
//
// Wake policy: a sleeping side is woken only once `wakeAfter` items are ready for it, or when the other side
// is about to sleep itself (so neither waits on a side that waits), or at the end. Every sleep costs a context
// switch, and on a busy machine the woken thread then waits for a CPU: a wake per item cost 15-18% of a
// backup's wall time at a load average of 4 on 2 cores.
import Glibc

/// A bounded, ordered hand-off of reusable items from one producer thread to one consumer thread.
/// Thread safety: every method takes the lock.
public final class HandOff<Item, Failure: Error>: @unchecked Sendable {
    private let condition = ConditionVariable()
    private var spare: [Item]
    private var ready: [Item] = []
    /// Items submitted and not yet recycled (queued, or held by the consumer).
    private var inFlight = 0
    private var closed = false
    private var stopped = false
    private var storedFailure: Failure?
    private var consumerWaits = false
    private var producerWaits = false
    /// Nanoseconds each side has spent asleep waiting for the other (`waited`).
    private var producerWaited: UInt64 = 0
    private var consumerWaited: UInt64 = 0
    private let wakeAfter: Int
    /// Items in the pool.
    public let capacity: Int

    /// A hand-off whose pool is `items`; a sleeping side wakes once `wakeAfter` items are ready for it
    /// (clamped to 1...items.count).
    public init(items: [Item], wakeAfter: Int = 1) {
        spare = items
        capacity = items.count
        self.wakeAfter = min(max(1, wakeAfter), max(1, items.count))
    }

    // MARK: - Producer

    /// A spare item to fill, waiting while the consumer holds them all; nil once stopped.
    public func takeSpare() -> Item? {
        condition.lock()
        defer { condition.unlock() }
        if spare.isEmpty && !stopped {
            let start = MonotonicClock.nanoseconds()
            while spare.isEmpty && !stopped {
                producerWaits = true
                if consumerWaits && !ready.isEmpty { condition.broadcast() }
                condition.wait()
                producerWaits = false
            }
            producerWaited &+= MonotonicClock.nanoseconds() &- start
        }
        return stopped ? nil : spare.removeLast()
    }

    /// Whether the producer is waiting in `takeSpare` for the consumer to recycle an item (tests wait for this state).
    public var producerIsWaiting: Bool {
        condition.lock()
        defer { condition.unlock() }
        return producerWaits
    }

    /// Whether the consumer is waiting in `next` for the producer to submit an item (tests wait for this state).
    public var consumerIsWaiting: Bool {
        condition.lock()
        defer { condition.unlock() }
        return consumerWaits
    }

    /// The spare items in the pool now: how many `takeSpare` calls would return at once.
    public var spareCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return spare.count
    }

    /// Nanoseconds each side has spent asleep so far: the producer in `takeSpare` waiting for a spare (the consumer is
    /// the slower side then), the consumer in `next` waiting for an item (the producer is).
    public var waited: (producer: UInt64, consumer: UInt64) {
        condition.lock()
        defer { condition.unlock() }
        return (producerWaited, consumerWaited)
    }

    /// Whether `takeSpare` would return at once (a spare is in the pool, or the hand-off stopped).
    public var hasSpare: Bool {
        condition.lock()
        defer { condition.unlock() }
        return !spare.isEmpty || stopped
    }

    /// Hands `item` to the consumer. False once stopped (the item is dropped).
    @discardableResult
    public func submit(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return false }
        ready.append(item)
        inFlight += 1
        if consumerWaits && ready.count >= wakeAfter { condition.broadcast() }
        return true
    }

    /// Takes back, in submission order, the queued items from the newest one `wanted` accepts to the newest of all,
    /// for the producer to work on while the consumer drains the older ones (a producer with nothing left to fill
    /// shares the consumer's work from the other end). They stay in flight: the consumer does not see them, and waits
    /// when it has drained the rest, until `putBack`. Nil when no queued item is wanted, or once stopped.
    public func takeBack(fromNewestWhere wanted: (Item) -> Bool) -> [Item]? {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped, let index = ready.lastIndex(where: wanted) else { return nil }
        let taken = Array(ready[index...])
        ready.removeSubrange(index...)
        return taken
    }

    /// Queues again, after every item still queued and in their order, the items `takeBack` returned (nothing more
    /// may be submitted in between: the order the consumer sees is the order of submission). Dropped once stopped.
    public func putBack(_ items: [Item]) {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else {
            inFlight -= items.count
            return
        }
        ready.append(contentsOf: items)
        if consumerWaits && ready.count >= wakeAfter { condition.broadcast() }
    }

    /// No more items will be submitted: the consumer drains what is queued, then `next()` returns nil.
    public func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until the consumer has recycled every submitted item. False once stopped.
    @discardableResult
    public func waitUntilIdle() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while inFlight > 0 && !stopped {
            producerWaits = true
            if consumerWaits && !ready.isEmpty { condition.broadcast() }
            condition.wait()
            producerWaits = false
        }
        return !stopped
    }

    // MARK: - Consumer

    /// The next submitted item, in submission order; nil once closed and drained, or stopped.
    public func next() -> Item? {
        condition.lock()
        defer { condition.unlock() }
        if ready.isEmpty && !closed && !stopped {
            let start = MonotonicClock.nanoseconds()
            while ready.isEmpty && !closed && !stopped {
                consumerWaits = true
                if producerWaits { condition.broadcast() }
                condition.wait()
                consumerWaits = false
            }
            consumerWaited &+= MonotonicClock.nanoseconds() &- start
        }
        if stopped || ready.isEmpty { return nil }
        return ready.removeFirst()
    }

    /// Returns a drained item to the pool.
    public func recycle(_ item: Item) {
        condition.lock()
        defer { condition.unlock() }
        spare.append(item)
        inFlight -= 1
        if producerWaits && (spare.count >= wakeAfter || ready.isEmpty || inFlight == 0) { condition.broadcast() }
    }

    // MARK: - Either side

    /// Stops both sides with `failure` (the first one is kept); queued items are dropped.
    public func fail(_ failure: Failure) {
        condition.lock()
        if storedFailure == nil { storedFailure = failure }
        stopLocked()
        condition.unlock()
    }

    /// Stops both sides without a failure; queued items are dropped.
    public func cancel() {
        condition.lock()
        stopLocked()
        condition.unlock()
    }

    /// The first failure passed to `fail`.
    public var failure: Failure? {
        condition.lock()
        defer { condition.unlock() }
        return storedFailure
    }

    /// Whether `fail` or `cancel` stopped the hand-off.
    public var isStopped: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopped
    }

    private func stopLocked() {
        stopped = true
        inFlight -= ready.count
        ready.removeAll()
        condition.broadcast()
    }
}
