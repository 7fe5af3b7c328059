// Kernel+DescriptorTable: the process's descriptor table grown once, while it has one thread.
import Glibc

extension Kernel {
    /// The slots `reserveDescriptorSlots` is asked for at start-up: a MobileSync backup holds up to 256 `xx`
    /// directories, 32 deferred files and the walk's directories open at once (280 descriptors for the bench tree).
    public static let startupDescriptorSlots = 1024

    /// Grows this process's descriptor table to `count` slots (fewer when `RLIMIT_NOFILE`'s soft limit is lower) by
    /// duplicating a standard descriptor to the highest slot and closing the copy: the kernel never shrinks a table.
    /// Call it while the process has one thread. Why: the kernel grows the table when a descriptor number does not
    /// fit (64 slots, or 256 inherited from a shell; then 512 ...), and in a process whose threads share the table
    /// each growth waits for an RCU grace period (`expand_fdtable`: `synchronize_rcu`), with every thread that opens
    /// a file waiting behind it: on the bench's VM a MobileSync backup of 2,000 files took 0.095 s with the table
    /// grown as it went and 0.052 s with it grown first (21 alternating rounds). With one thread there is no wait
    /// (three system calls; 8 KiB of kernel memory for 1,024 slots). Returns whether the table now has the slots
    /// (false: no standard descriptor open to duplicate, or the limit leaves no more than the 64 every process
    /// starts with).
    @discardableResult
    public static func reserveDescriptorSlots(_ count: Int) -> Bool {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return false }
        let slots = min(UInt64(max(count, 0)), UInt64(limit.rlim_cur), UInt64(Int32.max))
        guard slots > 64 else { return false }
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
            let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, Int32(slots - 1))
            if copy >= 0 {
                close(copy)
                return true
            }
            if errno != EBADF { return false }
        }
        return false
    }
}
