// RunQueueDelay: how long a thread waited for a CPU while it could run, from the kernel's schedstat.
import Glibc

/// Watches the thread that creates it: the time it ran and the time it was runnable but waited on a run queue
/// (`/proc/thread-self/schedstat`, the kernel's sched_info: nanoseconds run, nanoseconds waited, time slices).
/// `contended()` answers for the last two intervals between its calls: whether the thread waited for a CPU more
/// than a quarter of the time it wanted one in either, as it does when it shares a core with a busy process (about
/// half of its time; though an interval after a sleep may see no wait at all: the scheduler credits a thread that
/// slept, so one interval alone flips back and forth) and not when a core is its own (a few percent). Without the
/// file (a kernel without sched_info) it always answers false. Use it on the creating thread alone.
public struct RunQueueDelay: ~Copyable {
    /// The thread's schedstat, or -1 without one (read only: closed silently).
    private let file: FileDescriptor
    private var last: (run: UInt64, wait: UInt64)?
    /// The previous interval's answer.
    private var waitedBefore = false

    public init() {
        file = FileDescriptor(
            rawValue: Glibc.open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC), path: "/proc/thread-self/schedstat")
        last = sample()
    }

    /// Whether the thread waited for a CPU more than a quarter of the time it wanted one since the last call (the
    /// first call: since `init`) or in the interval before. An interval with nothing to compare (no file, an
    /// unreadable sample) counts as one without waiting.
    public mutating func contended() -> Bool {
        var waited = false
        if let now = sample(), let before = last {
            last = now
            if now.run >= before.run, now.wait >= before.wait {
                waited = Self.isContended(run: now.run - before.run, wait: now.wait - before.wait)
            }
        }
        defer { waitedBefore = waited }
        return waited || waitedBefore
    }

    /// The decision on one interval: waited more than a quarter of `run + wait` (nanoseconds).
    public static func isContended(run: UInt64, wait: UInt64) -> Bool {
        let wanted = run.addingReportingOverflow(wait)
        guard !wanted.overflow, wanted.partialValue > 0 else { return false }
        return wait > wanted.partialValue / 4
    }

    /// Parses schedstat's text (`<run ns> <wait ns> <slices>`); nil for anything else.
    public static func parse(_ text: UnsafeRawBufferPointer) -> (run: UInt64, wait: UInt64)? {
        var fields: [UInt64] = []
        var value: UInt64 = 0
        var digits = 0
        for byte in text {
            if byte >= 0x30 && byte <= 0x39 {
                let next = value.multipliedReportingOverflow(by: 10)
                let sum = next.partialValue.addingReportingOverflow(UInt64(byte - 0x30))
                guard !next.overflow, !sum.overflow, digits < 20 else { return nil }
                value = sum.partialValue
                digits += 1
            } else if byte == 0x20 || byte == 0x0A {
                if digits > 0 { fields.append(value) }
                value = 0
                digits = 0
                if fields.count == 2 { break }
            } else {
                return nil
            }
        }
        if fields.count < 2 && digits > 0 { fields.append(value) }
        guard fields.count == 2 else { return nil }
        return (fields[0], fields[1])
    }

    private func sample() -> (run: UInt64, wait: UInt64)? {
        let fd = file.rawValue
        guard fd >= 0 else { return nil }
        var buffer: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &buffer) { bytes in
            let n = pread(fd, bytes.baseAddress, bytes.count, 0)
            guard n > 0 else { return nil }
            return Self.parse(UnsafeRawBufferPointer(rebasing: bytes[0..<n]))
        }
    }
}
