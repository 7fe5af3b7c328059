// MonotonicClock: the one reader of CLOCK_MONOTONIC (a vDSO read, no system call).
import CSupport  // `timespec`'s members: visible through the module whose headers define it (MemberImportVisibility)
import Glibc

/// Time since an arbitrary fixed point, never going back: for intervals (progress, waits), not for dates.
public enum MonotonicClock {
    /// Now, in nanoseconds.
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }

    /// Now, in seconds.
    public static func seconds() -> Double {
        Double(nanoseconds()) / 1e9
    }
}
