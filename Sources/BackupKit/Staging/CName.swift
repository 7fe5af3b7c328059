// CName: a NUL-terminated copy of a raw byte name, for syscalls that take `const char *`.

/// A byte string with a trailing NUL. Names stay raw bytes end to end (no UTF-8 repair on the way to the kernel).
struct CName {
    private var storage: [CChar]

    init<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        storage = [CChar](unsafeUninitializedCapacity: bytes.count + 1) { buffer, count in
            var index = 0
            for byte in bytes {
                buffer[index] = CChar(bitPattern: byte)
                index += 1
            }
            buffer[index] = 0
            count = index + 1
        }
    }

    /// Calls `body` with the C string.
    func withPointer<T>(_ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T {
        try storage.withUnsafeBufferPointer { try body($0.baseAddress!) }
    }

    /// The name for messages.
    var text: String {
        String(decoding: storage.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
