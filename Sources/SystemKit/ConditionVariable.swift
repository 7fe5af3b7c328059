// ConditionVariable: a pthread mutex with its condition variable, for threads that hand work to each other.
import Glibc

/// A mutex and a condition variable. `wait` must be called with the mutex held (`lock`).
public final class ConditionVariable: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let variable = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(variable, nil)
    }

    deinit {
        pthread_cond_destroy(variable)
        pthread_mutex_destroy(mutex)
        variable.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }
    /// Releases the mutex until another thread calls `broadcast`, then takes it again.
    public func wait() { pthread_cond_wait(variable, mutex) }
    /// Wakes every waiting thread.
    public func broadcast() { pthread_cond_broadcast(variable) }
}
