// WorkerThread: the one worker thread type: a pthread that runs a closure and is joined by its owner.
import CSupport
import Glibc

/// A thread running one closure. The owner joins it (`join()`, or at the latest when the value goes away),
/// so no worker outlives the pipeline that started it.
public struct WorkerThread: ~Copyable {
    private let thread: pthread_t

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
        let work = Work {
            if whenIdle { _ = csupport_run_when_idle() }
            if avoided >= 0 { _ = csupport_avoid_cpu(avoided) }
            body()
        }
        let context = Unmanaged.passRetained(work).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, &attributes,
            { context in
                Unmanaged<Work>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            }, context)
        guard status == 0 else {
            Unmanaged<Work>.fromOpaque(context).release()
            throw SystemError("pthread_create", code: status)
        }
        self.thread = thread
    }

    /// Waits until the closure has returned.
    public consuming func join() {
        pthread_join(thread, nil)
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
    }

    private final class Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
