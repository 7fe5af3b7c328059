// Batch: one buffer of packed records travelling from the reading thread to the writing thread.
import Glibc

/// One buffer of packed records (see `BatchRecord`). Owned by exactly one thread at a time: the
/// reader fills it, `submit` hands it over, the writer drains it and `recycle`s it.
final class Batch: @unchecked Sendable {
    private(set) var base: UnsafeMutableRawPointer
    private(set) var capacity: Int
    /// Bytes filled.
    var used = 0
    /// The open files of the `handedOver` records in this batch, in order: the batch owns their descriptors and
    /// closes them once drained (`BatchPipe.recycle`) or when it is freed (a cancelled run).
    private(set) var carried: [CarriedFile] = []

    init(capacity: Int) {
        self.capacity = capacity
        base = .allocate(byteCount: capacity, alignment: 4096)
    }

    deinit {
        closeCarried()
        base.deallocate()
    }

    /// Takes ownership of an open file the writing thread will read; returns its index in `carried`.
    func carry(_ file: CarriedFile) -> Int {
        carried.append(file)
        return carried.count - 1
    }

    /// Closes the carried files (opened read-only: a failing close loses nothing).
    func closeCarried() {
        guard !carried.isEmpty else { return }
        for file in carried { close(file.descriptor) }
        carried.removeAll(keepingCapacity: true)
    }

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
