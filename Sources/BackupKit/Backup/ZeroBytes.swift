// ZeroBytes: the zeros of a sparse file's holes, for the digest and for formats that store every byte.

/// One shared block of zeros, handed out in chunks: a hole is hashed (the manifest's digest is of the logical
/// content) and written to the format sink as zeros, never read from the file.
enum ZeroBytes {
    private static let block = [UInt8](repeating: 0, count: 256 << 10)

    /// Calls `body` with zero bytes adding up to `count`, at most 256 KiB at a time.
    static func forEachChunk(_ count: UInt64, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        try block.withUnsafeBytes { zeros in
            var remaining = count
            while remaining > 0 {
                let chunk = Int(min(remaining, UInt64(zeros.count)))
                try body(UnsafeRawBufferPointer(rebasing: zeros[0..<chunk]))
                remaining -= UInt64(chunk)
            }
        }
    }
}
