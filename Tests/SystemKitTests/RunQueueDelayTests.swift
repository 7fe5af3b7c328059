// RunQueueDelayTests: schedstat parsing, the quarter rule, a thread sharing its CPU with a busy one, and
// csupport_avoid_cpu (the formatting thread keeping off the reading thread's CPU).
import CSupport
import Glibc
import SystemKit
import Testing

@Suite struct RunQueueDelayTests {
    private func parse(_ text: String) -> (run: UInt64, wait: UInt64)? {
        Array(text.utf8).withUnsafeBytes { RunQueueDelay.parse($0) }
    }

    @Test func parsesTheKernelsThreeFields() {
        #expect(parse("0 110655 1\n").map { [$0.run, $0.wait] } == [0, 110_655])
        #expect(parse("123456789012 987654321 42\n").map { [$0.run, $0.wait] } == [123_456_789_012, 987_654_321])
        #expect(parse("5 6").map { [$0.run, $0.wait] } == [5, 6])
        #expect(parse("") == nil)
        #expect(parse("12\n") == nil)
        #expect(parse("1 x 3\n") == nil)
        #expect(parse("-1 2 3\n") == nil)
        #expect(parse("99999999999999999999999 1 1\n") == nil)
    }

    @Test func waitingMoreThanAQuarterOfTheWantedTimeIsContention() {
        #expect(!RunQueueDelay.isContended(run: 0, wait: 0))
        #expect(!RunQueueDelay.isContended(run: 1_000_000, wait: 0))
        #expect(!RunQueueDelay.isContended(run: 3_000_000, wait: 1_000_000))
        #expect(RunQueueDelay.isContended(run: 3_000_000, wait: 1_000_001))
        #expect(RunQueueDelay.isContended(run: 1_000_000, wait: 1_000_000))
        #expect(!RunQueueDelay.isContended(run: UInt64.max, wait: 1))
    }

    /// A thread pinned to one CPU beside a busy thread pinned there too waits about half the time it wants: contended.
    /// Both spin until the watched thread has run 50 ms (the kernel's own count), a deadline of 30 s.
    @Test func aThreadSharingItsCPUWithABusyOneIsContended() throws {
        try #require(access("/proc/thread-self/schedstat", R_OK) == 0, "this kernel keeps no sched_info")
        let cpu = csupport_current_cpu()
        try #require(cpu >= 0)
        let stop = Locked(false)
        let busy = try WorkerThread {
            _ = Self.pin(to: cpu)
            while !stop.value {}
        }
        let answer = Locked<Bool?>(nil)
        let watched = try WorkerThread {
            guard Self.pin(to: cpu) else { return }
            var delay = RunQueueDelay()
            let deadline = MonotonicClock.seconds() + 30
            let start = Self.runNanoseconds()
            while Self.runNanoseconds() - start < 50_000_000 && MonotonicClock.seconds() < deadline {}
            answer.value = delay.contended()
        }
        watched.join()
        stop.value = true
        busy.join()
        #expect(answer.value == true)
    }

    @Test func avoidingACPURemovesItOnlyWhenAnotherIsAllowed() throws {
        let answer = Locked<([Int], Int32, [Int], Int)?>(nil)
        let thread = try WorkerThread {
            let before = Self.allowed()
            let avoided = before.first ?? 0
            let changed = csupport_avoid_cpu(Int32(avoided))
            answer.value = (before, changed, Self.allowed(), avoided)
        }
        thread.join()
        let (before, changed, after, avoided) = answer.value!
        if before.count >= 2 {
            #expect(changed == 1)
            #expect(after == before.filter { $0 != avoided })
        } else {
            #expect(changed == 0)
            #expect(after == before)
        }
        #expect(csupport_avoid_cpu(-1) == 0)
    }

    /// `WorkerThread(offCallersCPU:)` starts the thread off the CPU its creator runs on when it may run on two or more
    /// (a restore's writer, a backup's formatter). The creator's CPU is read before and after the start: a creator
    /// that moved in between is tried again.
    @Test func aWorkerStartedOffItsCallersCPUMayNotRunThere() throws {
        let deadline = MonotonicClock.seconds() + 30
        while MonotonicClock.seconds() < deadline {
            let answer = Locked<[Int]?>(nil)
            let before = Int(csupport_current_cpu())
            let thread = try WorkerThread(offCallersCPU: true) { answer.value = Self.allowed() }
            let after = Int(csupport_current_cpu())
            thread.join()
            guard before == after else { continue }
            let mine = Self.allowed()
            #expect(answer.value == (mine.count >= 2 ? mine.filter { $0 != before } : mine))
            return
        }
        Issue.record("the creating thread moved between CPUs at every try for 30 s")
    }

    /// `mayRunAnywhere()` gives a worker started off its creator's CPU that CPU back (a backup's count, which its
    /// owner is about to wait for): called while the worker runs, and called at once after the start, when the worker
    /// may not have restricted itself yet (it then undoes that itself). Each worker reads its CPUs only after the
    /// call has returned.
    @Test func aWorkerMayRunAnywhereOnceItsOwnerSaysSo() throws {
        let mine = Self.allowed()
        for started in [true, false] {
            let before = Locked<[Int]?>(nil)
            let go = Locked(false)
            let after = Locked<[Int]?>(nil)
            let thread = try WorkerThread(whenIdle: false, offCallersCPU: true) {
                if started { before.value = Self.allowed() }
                let deadline = MonotonicClock.seconds() + 30
                while !go.value && MonotonicClock.seconds() < deadline { sched_yield() }
                after.value = Self.allowed()
            }
            let avoided = Int(thread.avoidedCPU)
            if started {
                let deadline = MonotonicClock.seconds() + 30
                while before.value == nil && MonotonicClock.seconds() < deadline { sched_yield() }
                #expect(before.value == (mine.count >= 2 ? mine.filter { $0 != avoided } : mine))
            }
            thread.mayRunAnywhere()
            go.value = true
            thread.join()
            #expect(mine.count < 2 || mine.contains(avoided), "the creator ran on a CPU it may use")
            #expect(after.value == mine)
        }
    }

    /// `mayRunAnywhere()` after the worker has ended changes nobody's CPUs: the kernel has cleared the ended thread's
    /// id, and asked by that id glibc would change the calling thread's instead. A helper thread starts the worker,
    /// waits until its task is gone from /proc, keeps itself off the worker's avoided CPU, then calls.
    @Test func mayRunAnywhereAfterTheWorkerEndedLeavesTheCallerAlone() throws {
        let mine = Self.allowed()
        let outcome = Locked<[Int]?>(nil)
        let expected = Locked<[Int]?>(nil)
        let helper = try WorkerThread {
            let id = Locked<Int32>(0)
            guard let worker = try? WorkerThread(offCallersCPU: true, { id.value = csupport_thread_id() }) else { return }
            let avoided = worker.avoidedCPU
            let deadline = MonotonicClock.seconds() + 30
            while (id.value == 0 || access("/proc/self/task/\(id.value)", F_OK) == 0)
                && MonotonicClock.seconds() < deadline { sched_yield() }
            _ = csupport_avoid_cpu(avoided)
            expected.value = Self.allowed()
            worker.mayRunAnywhere()
            outcome.value = Self.allowed()
            worker.join()
        }
        helper.join()
        #expect(outcome.value != nil && outcome.value == expected.value)
        #expect(mine.count < 2 || expected.value?.count == mine.count - 1, "the helper kept off one CPU")
    }

    // MARK: - Helpers

    private static func pin(to cpu: Int32) -> Bool {
        csupport_pin_to_cpu(cpu) == 0
    }

    /// The CPUs the calling thread may run on (of the first 1024).
    private static func allowed() -> [Int] {
        (0..<1024).filter { csupport_cpu_allowed(Int32($0)) == 1 }
    }

    private static func runNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// A value shared between the test and its threads, behind a lock.
    private final class Locked<Value>: @unchecked Sendable {
        private let lock = ConditionVariable()
        private var stored: Value
        init(_ value: Value) { stored = value }
        var value: Value {
            get {
                lock.lock()
                defer { lock.unlock() }
                return stored
            }
            set {
                lock.lock()
                stored = newValue
                lock.unlock()
            }
        }
    }
}
