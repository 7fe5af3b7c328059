// HashShare: the share of a plain tar backup's files the reading thread hashes, kept where both threads wait alike.

/// Under `HashPlacement.byBacklog`, the reading thread hashes this share of the files it reads (every n-th file,
/// spread evenly by a running credit) and the formatting thread the rest. The share starts at none and follows the
/// threads' waits on each other: every `interval` batches the reading thread compares, over the last interval, how
/// long it slept waiting for an empty batch (the formatter was the slower) with how long the formatter slept waiting
/// for a full one (the reader was), and moves the share by `gain` times the difference, as a fraction of the
/// interval's time. Sleep time, not CPU time: a thread that waits for a disk or for a CPU is behind too.
/// The balance differs by machine: on an Intel Xeon with SHA extensions the formatter (hashing, pax headers, the
/// archive's writes) was the slower thread of a backup of the bench tree and a fixed half measured 12% faster than
/// hashing only while every batch was full; on an AMD EPYC both threads were about equally busy.
struct HashShare {
    /// Batches between two adjustments.
    static let interval = 8
    /// The share's step per unit of waiting difference (a difference of the whole interval moves it by this).
    static let gain = 0.5

    /// The share of files the reading thread hashes, 0...1.
    private(set) var fraction = 0.0
    private var credit = 0.0
    /// The clock and both threads' total waits at the last adjustment.
    private var last: (time: UInt64, reader: UInt64, formatter: UInt64)?

    /// Whether the reading thread hashes the next file.
    mutating func readerHashesNext() -> Bool {
        credit += fraction
        guard credit >= 1 else { return false }
        credit -= 1
        return true
    }

    /// Adjusts the share from the clock and the threads' total waits so far (nanoseconds; the first call only
    /// records them).
    mutating func observe(time: UInt64, readerWaited: UInt64, formatterWaited: UInt64) {
        defer { last = (time, readerWaited, formatterWaited) }
        guard let last, time > last.time else { return }
        let elapsed = Double(time - last.time)
        let difference = Double(readerWaited &- last.reader) - Double(formatterWaited &- last.formatter)
        fraction = min(1, max(0, fraction + Self.gain * difference / elapsed))
    }
}
