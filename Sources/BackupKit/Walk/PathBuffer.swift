// PathBuffer: the walker's current relative path, grown and shrunk in place (no per-file allocation).
import Glibc

/// A NUL-terminated relative path (`a/b/c`) that the walker extends by one component on the way
/// down and truncates on the way back. Pointers it hands out are valid until the next push or pop.
final class PathBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes in the path, without the NUL.
    private(set) var length = 0

    init(capacity: Int = 4096) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
        base[0] = 0
    }

    deinit { base.deallocate() }

    /// Appends `/name` (or `name` at the top); returns the previous length for `pop(to:)`.
    func push(_ name: UnsafeBufferPointer<UInt8>) -> Int {
        let previous = length
        let needed = length + 1 + name.count + 1
        if needed > capacity { grow(to: needed) }
        if length > 0 {
            base[length] = UInt8(ascii: "/")
            length += 1
        }
        (base + length).update(from: name.baseAddress!, count: name.count)
        length += name.count
        base[length] = 0
        return previous
    }

    /// Truncates back to `previous` bytes.
    func pop(to previous: Int) {
        length = previous
        base[length] = 0
    }

    /// The path as bytes (without the NUL).
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: length) }

    /// The path as a C string.
    var cString: UnsafePointer<CChar> { UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self) }

    /// The path as a `String` (for messages, not the hot path).
    var string: String { String(decoding: bytes, as: UTF8.self) }

    private func grow(to needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.update(from: base, count: length + 1)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }
}
