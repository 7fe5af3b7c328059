// XzDecoder: an xz stream decoded with liblzma under a memory limit, so no block of it can make a read cost more.
//
// An xz decoder needs as much memory as each block's LZMA2 dictionary asks for (up to 1.5 GiB), and libarchive's xz
// reader sets no limit (with liblzma 5 it passes UINT64_MAX). A block header need not carry its size, so the blocks
// after the first cannot be found without decoding, and a stream may be followed by more streams (`xz -d` reads
// them as one): a checker of headers sees only the first. liblzma enforces the limit itself, for every block of
// every concatenated stream, before it allocates; after the last stream only its padding and the end of input are
// accepted. The reader uses this for every xz input, before libarchive sees it.
import CLzma

/// Decodes an xz stream pulled from a source of raw blocks; concatenated streams are one stream (as `xz -d`).
final class XzDecoder {
    /// Where the xz stream went wrong.
    struct Failure: Error {
        /// What liblzma found.
        let reason: String
        /// Offset of the compressed input where it was found.
        let inputOffset: UInt64
        /// The memory the stream asked for, when that is why it was refused.
        let memory: UInt64?
    }

    private var stream = lzma_stream()
    private let output: UnsafeMutableRawBufferPointer
    /// The raw block being decoded (owned by the source, valid until the next pull).
    private var input = UnsafeRawBufferPointer(start: nil, count: 0)
    /// Raw bytes consumed so far.
    private var consumed: UInt64 = 0
    private var inputEnded = false
    private var finished = false

    /// A decoder handing out blocks of up to `outputSize` bytes, refusing any block that needs more than
    /// `memoryLimit` bytes of decoder memory.
    init(outputSize: Int, memoryLimit: UInt64) throws(Failure) {
        output = .allocate(byteCount: outputSize, alignment: 64)
        let status = lzma_stream_decoder(&stream, memoryLimit, CLZMA_CONCATENATED)
        guard status == LZMA_OK else {
            output.deallocate()
            let reason = status == LZMA_MEM_ERROR ? "not enough memory to decode xz" : "the xz decoder could not start"
            throw Failure(reason: reason, inputOffset: 0, memory: nil)
        }
    }

    deinit {
        lzma_end(&stream)
        output.deallocate()
    }

    /// The next block of decoded bytes, empty at the end of the stream. `pull` returns the next raw block
    /// (empty at end of input); its bytes must stay valid until the next call of `pull`.
    func read(pull: () throws -> UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer {
        while !finished {
            if input.isEmpty && !inputEnded {
                input = try pull()
                if input.isEmpty { inputEnded = true }
            }
            stream.next_in = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
            stream.avail_in = input.count
            stream.next_out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
            stream.avail_out = output.count
            // At the end of input, LZMA_FINISH: liblzma then tells a complete stream from a truncated one.
            let status = lzma_code(&stream, inputEnded ? LZMA_FINISH : LZMA_RUN)
            let used = input.count - stream.avail_in
            consumed += UInt64(used)
            input = used == input.count ? UnsafeRawBufferPointer(start: nil, count: 0)
                : UnsafeRawBufferPointer(rebasing: input[used...])
            let produced = output.count - stream.avail_out
            switch status {
            case LZMA_OK:
                break
            case LZMA_STREAM_END:
                finished = true
            case LZMA_MEMLIMIT_ERROR:
                let needed = lzma_memusage(&stream)
                throw Failure(
                    reason: "the stream needs \(needed >> 20) MiB to decode", inputOffset: consumed, memory: needed)
            case LZMA_BUF_ERROR where inputEnded:
                throw Failure(reason: "the xz stream is truncated", inputOffset: consumed, memory: nil)
            case LZMA_BUF_ERROR:
                break
            case LZMA_FORMAT_ERROR:
                throw Failure(
                    reason: "data after the end of the xz stream, or not xz", inputOffset: consumed, memory: nil)
            case LZMA_DATA_ERROR, LZMA_OPTIONS_ERROR:
                throw Failure(reason: "the xz stream is damaged", inputOffset: consumed, memory: nil)
            default:
                throw Failure(
                    reason: "the xz stream could not be decoded (liblzma: error \(status.rawValue))", inputOffset: consumed,
                    memory: nil)
            }
            if produced > 0 { return UnsafeRawBufferPointer(start: output.baseAddress, count: produced) }
            if status == LZMA_OK && used == 0 && inputEnded {
                throw Failure(reason: "the xz stream is truncated", inputOffset: consumed, memory: nil)
            }
        }
        return UnsafeRawBufferPointer(start: nil, count: 0)
    }
}
