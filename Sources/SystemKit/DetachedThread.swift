// DetachedThread: starts a detached pthread that runs a closure (a pipeline's worker thread).
import Glibc

/// Starts worker threads without Foundation's `Thread` (no run loop, nothing to join).
public enum DetachedThread {
    /// Runs `body` on a new detached thread. Returns 0, or `pthread_create`'s error number, in which case
    /// `body` never runs (the caller must then not wait for it).
    public static func start(_ body: @escaping @Sendable () -> Void) -> Int32 {
        let context = Unmanaged.passRetained(Work(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { context in
                Unmanaged<Work>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            }, context)
        if status == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<Work>.fromOpaque(context).release()
        }
        return status
    }

    private final class Work {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
