// DescriptorTable: a fixed number of owned descriptors by index (an array cannot hold a FileDescriptor).
import SystemKit

/// `count` slots, each holding one `FileDescriptor` or none (-1), allocated once: storing and looking up allocate
/// nothing. Every descriptor stored is closed (silently, in index order) when the table goes.
final class DescriptorTable {
    private let slots: UnsafeMutablePointer<FileDescriptor>
    let count: Int

    init(count: Int) {
        self.count = count
        slots = .allocate(capacity: count)
        for index in 0..<count { (slots + index).initialize(to: FileDescriptor(rawValue: -1, path: "")) }
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    /// The raw descriptor at `index` (borrowed: the table keeps it open); -1 when there is none.
    subscript(index: Int) -> Int32 {
        precondition(index >= 0 && index < count)
        return slots[index].rawValue
    }

    /// Stores `file` at `index`, closing the one there before (if any).
    func store(_ file: consuming FileDescriptor, at index: Int) {
        precondition(index >= 0 && index < count)
        slots[index] = file
    }

    /// Closes every descriptor held (silently, in index order), leaving every slot empty.
    func closeAll() {
        for index in 0..<count { slots[index] = FileDescriptor(rawValue: -1, path: "") }
    }
}
