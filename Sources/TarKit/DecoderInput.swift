// DecoderInput: the raw input an in-process decoder (gzip, xz, lzip, lzma) works through, block by block.

/// The raw block a decoder is consuming, pulled from its source when used up, and the bytes consumed so far.
struct DecoderInput {
    /// What is left of the block being decoded (owned by the source, valid until the next pull).
    private(set) var bytes = UnsafeRawBufferPointer(start: nil, count: 0)
    /// Raw bytes consumed so far: the offset a decoder's failure names.
    private(set) var consumed: UInt64 = 0
    /// The source returned an empty block: the input is over.
    private(set) var ended = false

    /// Pulls the next block when the current one is used up (`pull` returns an empty block at the end of input).
    mutating func refill(_ pull: () throws -> UnsafeRawBufferPointer) rethrows {
        guard bytes.isEmpty && !ended else { return }
        bytes = try pull()
        if bytes.isEmpty { ended = true }
    }

    /// Marks the first `count` bytes of the block decoded.
    mutating func advance(by count: Int) {
        consumed += UInt64(count)
        bytes =
            count == bytes.count
            ? UnsafeRawBufferPointer(start: nil, count: 0) : UnsafeRawBufferPointer(rebasing: bytes[count...])
    }
}
