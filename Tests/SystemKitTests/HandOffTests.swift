import Glibc
import SystemKit
import TestSupport
import Testing

/// One item of a test pool: a value the producer writes and the consumer reads.
private final class Slot {
    var value = -1
}

private struct Stop: Error, Equatable {
    let code: Int
}

/// What the consumer saw, under a lock (read by the test thread after the worker is joined).
private final class Seen: @unchecked Sendable {
    private let condition = ConditionVariable()
    private var storedValues: [Int] = []
    private var storedSlots: Set<ObjectIdentifier> = []
    private var storedEnded = false

    func record(_ slot: Slot) {
        condition.lock()
        storedValues.append(slot.value)
        storedSlots.insert(ObjectIdentifier(slot))
        condition.unlock()
    }

    func end() {
        condition.lock()
        storedEnded = true
        condition.unlock()
    }

    var values: [Int] { condition.lock(); defer { condition.unlock() }; return storedValues }
    var slots: Int { condition.lock(); defer { condition.unlock() }; return storedSlots.count }
    var ended: Bool { condition.lock(); defer { condition.unlock() }; return storedEnded }
}

@Suite(.timeLimit(.minutes(1))) struct HandOffTests {
    private func pool(_ count: Int) -> [Slot] { (0..<count).map { _ in Slot() } }

    private func drain(_ handOff: HandOff<Slot, Stop>, into seen: Seen) -> @Sendable () -> Void {
        {
            while let slot = handOff.next() {
                seen.record(slot)
                handOff.recycle(slot)
            }
            seen.end()
        }
    }

    @Test func consumerReceivesItemsInSubmissionOrderFromTheBoundedPool() throws {
        let handOff = HandOff<Slot, Stop>(items: pool(3), wakeAfter: 2)
        let seen = Seen()
        let consumer = try WorkerThread(drain(handOff, into: seen))
        for value in 0..<2_000 {
            let slot = try #require(handOff.takeSpare())
            slot.value = value
            #expect(handOff.submit(slot))
        }
        handOff.close()
        consumer.join()
        #expect(seen.values == Array(0..<2_000))
        // Backpressure: the producer only ever filled the pool's three items, so it waited for the consumer.
        #expect(seen.slots == 3)
        #expect(seen.ended)
    }

    @Test func closeLetsTheConsumerDrainWhatIsQueued() throws {
        let handOff = HandOff<Slot, Stop>(items: pool(4), wakeAfter: 4)
        for value in 0..<3 {
            let slot = try #require(handOff.takeSpare())
            slot.value = value
            handOff.submit(slot)
        }
        handOff.close()
        let seen = Seen()
        try WorkerThread(drain(handOff, into: seen)).join()
        #expect(seen.values == [0, 1, 2])
    }

    @Test func waitUntilIdleReturnsOnceEveryItemIsRecycledEvenBelowTheWakeThreshold() throws {
        let handOff = HandOff<Slot, Stop>(items: pool(8), wakeAfter: 4)
        let seen = Seen()
        let consumer = try WorkerThread(drain(handOff, into: seen))
        let slot = try #require(handOff.takeSpare())
        slot.value = 7
        handOff.submit(slot)
        // One item is below the consumer's wake threshold: the producer's wait must wake it, not deadlock.
        #expect(handOff.waitUntilIdle())
        #expect(seen.values == [7])
        handOff.close()
        consumer.join()
    }

    @Test func takeSpareOnAnExhaustedPoolWaitsUntilCancelled() throws {
        let handOff = HandOff<Slot, Stop>(items: pool(1))
        let only = try #require(handOff.takeSpare())
        handOff.submit(only)
        let result = Seen()
        let producer = try WorkerThread {
            // The pool's only item is queued and nobody consumes: this waits until the cancel.
            if let slot = handOff.takeSpare() { result.record(slot) }
            result.end()
        }
        handOff.cancel()
        producer.join()
        #expect(result.ended)
        #expect(result.values.isEmpty)
        #expect(handOff.isStopped)
        #expect(handOff.failure == nil)
        #expect(!handOff.submit(only))
    }

    /// Spins until `nanoseconds` have passed on the monotonic clock (a span the other thread is known to sleep
    /// through, not a sleep before an assertion).
    private func spin(_ nanoseconds: UInt64) {
        let start = MonotonicClock.nanoseconds()
        while MonotonicClock.nanoseconds() &- start < nanoseconds {}
    }

    /// The side that sleeps on the other (20 ms at least: the test spins that long once it sees it asleep) is counted,
    /// the side that found an item at once is not.
    @Test(arguments: [true, false]) func waitedCountsOnlyTheSideThatSlept(producerSleeps: Bool) throws {
        let handOff = HandOff<Slot, Stop>(items: pool(producerSleeps ? 1 : 2))
        if producerSleeps { handOff.submit(try #require(handOff.takeSpare())) }  // the pool's only item queued
        let sleeper = try WorkerThread {
            if producerSleeps {
                _ = handOff.takeSpare()
            } else if let item = handOff.next() {
                handOff.recycle(item)
            }
        }
        try #require(waitUntil(seconds: 30) { producerSleeps ? handOff.producerIsWaiting : handOff.consumerIsWaiting })
        spin(20_000_000)
        if producerSleeps {
            handOff.recycle(try #require(handOff.next()))  // ready: no wait
        } else {
            handOff.submit(try #require(handOff.takeSpare()))  // spare: no wait
        }
        sleeper.join()
        let waited = handOff.waited
        #expect((producerSleeps ? waited.producer : waited.consumer) >= 20_000_000)
        #expect((producerSleeps ? waited.consumer : waited.producer) == 0)
    }

    @Test func cancelWakesAWaitingConsumerAndDropsQueuedItems() throws {
        let handOff = HandOff<Slot, Stop>(items: pool(2), wakeAfter: 2)
        let seen = Seen()
        let consumer = try WorkerThread(drain(handOff, into: seen))
        handOff.cancel()
        consumer.join()
        #expect(seen.ended)
        #expect(seen.values.isEmpty)
        #expect(handOff.takeSpare() == nil)
        #expect(!handOff.waitUntilIdle())
    }

    @Test func consumerFailureStopsTheProducerAndTheFirstFailureIsKept() throws {
        let handOff = HandOff<Slot, Stop>(items: pool(2))
        let consumer = try WorkerThread {
            guard let slot = handOff.next() else { return }
            handOff.fail(Stop(code: slot.value))
            handOff.fail(Stop(code: 99))
            handOff.recycle(slot)
        }
        var submitted = 0
        var value = 0
        // The producer keeps going until the hand-off refuses: it must see the consumer's failure.
        while let slot = handOff.takeSpare() {
            slot.value = value
            value += 1
            if handOff.submit(slot) { submitted += 1 } else { break }
        }
        consumer.join()
        #expect(submitted >= 1)
        #expect(handOff.failure == Stop(code: 0))
        #expect(handOff.next() == nil)
    }

    /// Queues `values` from the pool (the consumer not yet started).
    private func queue(_ values: [Int], on handOff: HandOff<Slot, Stop>) throws {
        for value in values {
            let slot = try #require(handOff.takeSpare())
            slot.value = value
            #expect(handOff.submit(slot))
        }
    }

    @Test func takeBackReturnsTheQueueFromTheNewestWantedItemAndTheConsumerSeesSubmissionOrder() throws {
        let handOff = HandOff<Slot, Stop>(items: pool(6))
        try queue([0, 1, 2, 3, 4], on: handOff)
        // The newest odd value is 3: it and the items after it come back, in order.
        let taken = try #require(handOff.takeBack(fromNewestWhere: { $0.value % 2 == 1 }))
        #expect(taken.map(\.value) == [3, 4])
        #expect(handOff.takeBack(fromNewestWhere: { $0.value > 10 }) == nil)
        // The consumer drains the older items, then waits for the ones taken back: they are still in flight.
        let seen = Seen()
        let consumer = try WorkerThread(drain(handOff, into: seen))
        try #require(waitUntil(seconds: 30) { handOff.consumerIsWaiting && seen.values.count == 3 })
        #expect(seen.values == [0, 1, 2])
        taken[0].value = 33
        handOff.putBack(taken)
        #expect(handOff.waitUntilIdle())
        handOff.close()
        consumer.join()
        #expect(seen.values == [0, 1, 2, 33, 4])
        #expect(handOff.spareCount == 6)
    }

    @Test func itemsPutBackAfterAStopAreDroppedAndTheProducerIsNotLeftWaiting() throws {
        let handOff = HandOff<Slot, Stop>(items: pool(3))
        try queue([0, 1, 2], on: handOff)
        let taken = try #require(handOff.takeBack(fromNewestWhere: { $0.value == 1 }))
        handOff.fail(Stop(code: 5))
        #expect(handOff.takeBack(fromNewestWhere: { _ in true }) == nil)
        handOff.putBack(taken)
        #expect(handOff.next() == nil)
        #expect(!handOff.waitUntilIdle())
        #expect(handOff.failure == Stop(code: 5))
    }

    @Test func workerThreadJoinWaitsForItsClosure() throws {
        let seen = Seen()
        let worker = try WorkerThread(stackSize: 1 << 20) { seen.end() }
        worker.join()
        #expect(seen.ended)
    }
}
