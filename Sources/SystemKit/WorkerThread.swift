// WorkerThread: the one worker thread type: a pthread that runs a closure and is joined by its owner.
import CSupport
import Glibc
import Synchronization

/// A thread running one closure. The owner joins it (`join()`, or at the latest when the value goes away),
/// so no worker outlives the pipeline that started it.
public struct WorkerThread: ~Copyable {
    private let thread: pthread_t
    /// The owner's reference to what the thread runs (trivial, so that `join()` may discard the value), released
    /// by `join()` or `deinit`.
    private let work: Unmanaged<Work>
    /// The CPU the thread was started off (`offCallersCPU`), or -1.
    public var avoidedCPU: Int32 { work.takeUnretainedValue().avoided }

    /// Starts `body` on a new thread with a stack of `stackSize` bytes (nil: the default). `whenIdle`: the thread
    /// runs under SCHED_IDLE, only on a core no other thread wants (best effort: a kernel that refuses leaves it
    /// at the normal policy). `offCallersCPU`: the thread keeps off the CPU the calling thread runs on now, when it
    /// may run on two or more (best effort). Two threads of a pipeline that hand batches to each other look like one
    /// task to the scheduler, which often keeps both on one core while the other idles (perf `--sample-cpu`: a
    /// restore's and a list's two threads, every sample but a few percent on one CPU) or runs a busy process.
    /// - Throws: `SystemError` for `pthread_create` (then `body` never runs).
    public init(
        stackSize: Int? = nil, whenIdle: Bool = false, offCallersCPU: Bool = false,
        _ body: @escaping @Sendable () -> Void
    ) throws(SystemError) {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if let stackSize { pthread_attr_setstacksize(&attributes, stackSize) }
        let avoided = offCallersCPU ? csupport_current_cpu() : -1
        let work = Work(whenIdle: whenIdle, avoided: avoided, body)
        let context = Unmanaged.passRetained(work).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, &attributes,
            { context in
                Unmanaged<Work>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, context)
        guard status == 0 else {
            Unmanaged<Work>.fromOpaque(context).release()
            throw SystemError("pthread_create", code: status)
        }
        self.thread = thread
        self.work = Unmanaged.passRetained(work)
    }

    /// Lets the thread run on the CPU it was started off too, from now on (nothing when it was started anywhere).
    /// For an owner about to wait for it: a thread kept off the owner's CPU and under SCHED_IDLE may otherwise wait
    /// for as long as another process keeps its one allowed CPU busy, while the owner's CPU idles in the wait.
    public func mayRunAnywhere() {
        guard avoidedCPU >= 0 else { return }
        let work = work.takeUnretainedValue()
        // Raised first: a thread not yet past its start sees it there and undoes its own restriction.
        work.anywhere.store(true, ordering: .sequentiallyConsistent)
        // Only while the thread has not ended, which it then cannot until this call is done: the kernel clears an
        // ended thread's id, and glibc would then change the calling thread's CPUs instead.
        let claimed = work.phase.compareExchange(
            expected: Work.running, desired: Work.allowing, ordering: .sequentiallyConsistent)
        guard claimed.exchanged else { return }
        _ = csupport_thread_allow_cpu(thread, avoidedCPU)
        work.phase.store(Work.running, ordering: .sequentiallyConsistent)
    }

    /// Waits until the closure has returned.
    public consuming func join() {
        pthread_join(thread, nil)
        work.release()
        discard self
    }

    /// Joins the thread, unless the value goes away on that very thread (its closure released the last
    /// reference to the owner): a thread cannot join itself, so it is detached and ends on its own.
    deinit {
        if pthread_equal(thread, pthread_self()) != 0 {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
        work.release()
    }

    /// What the thread runs: its policies, then the body.
    private final class Work: Sendable {
        let body: @Sendable () -> Void
        let whenIdle: Bool
        let avoided: Int32
        /// Set by `mayRunAnywhere()`.
        let anywhere = Atomic<Bool>(false)
        /// `running`, `allowing` (the owner is changing the thread's CPUs) or `ended` (the body has returned).
        let phase = Atomic<Int>(Work.running)
        static let running = 0
        static let allowing = 1
        static let ended = 2

        init(whenIdle: Bool, avoided: Int32, _ body: @escaping @Sendable () -> Void) {
            self.whenIdle = whenIdle
            self.avoided = avoided
            self.body = body
        }

        func run() {
            if whenIdle { _ = csupport_run_when_idle() }
            if avoided >= 0 {
                _ = csupport_avoid_cpu(avoided)
                if anywhere.load(ordering: .sequentiallyConsistent) {
                    _ = csupport_thread_allow_cpu(pthread_self(), avoided)
                }
            }
            body()
            // The owner may be changing this thread's CPUs: it needs the thread alive for the moment that takes.
            while !phase.compareExchange(expected: Work.running, desired: Work.ended, ordering: .sequentiallyConsistent)
                .exchanged { sched_yield() }
        }
    }
}
