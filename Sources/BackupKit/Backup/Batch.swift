// Batch: one buffer of packed records travelling from the reading thread to the writing thread.

/// One buffer of packed records (see `BatchRecord`). Owned by exactly one thread at a time: the
/// reader fills it, `submit` hands it over, the writer drains it and `recycle`s it.
final class Batch: @unchecked Sendable {
    private(set) var base: UnsafeMutableRawPointer
    private(set) var capacity: Int
    /// Bytes filled.
    var used = 0

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 4096)
    }

    deinit { base.deallocate() }

    var free: Int { capacity - used }

    /// Makes room for `bytes` more (only for an oversized record; batches normally keep their size).
    func reserve(_ bytes: Int) {
        guard used + bytes > capacity else { return }
        let newCapacity = used + bytes
        let newBase = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 4096)
        newBase.copyMemory(from: base, byteCount: used)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }
}
