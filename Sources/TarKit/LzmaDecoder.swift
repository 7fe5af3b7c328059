// LzmaDecoder: an xz, lzip or lzma stream decoded with liblzma under a memory limit, so no part of it can make a
// read cost more.
//
// An LZMA decoder needs as much memory as the dictionary its stream asks for (xz: each block's, up to 1.5 GiB; lzip:
// each member's; lzma: the header's), and libarchive's readers set liblzma no limit (with liblzma 5 they pass
// UINT64_MAX). An xz block header need not carry its size and an lzip member's size is at its end, so the blocks
// and members after the first cannot be found without decoding, and streams may be concatenated (`xz -d` reads
// them as one): a checker of headers sees only the first. liblzma enforces the limit itself, for every block or
// member, before it allocates; after the last one only padding (xz) and the end of input are accepted. The reader
// uses this for every xz, lzip and lzma input, before libarchive sees it.
import CLzma

/// Decodes an xz, lzip or lzma stream pulled from a source of raw blocks; concatenated xz streams and lzip members
/// are one stream (as `xz -d` and `lzip -d` read them).
final class LzmaDecoder {
    /// The container around the LZMA data (libarchive's filter names).
    enum Format: String {
        case xz, lzip, lzma
    }

    /// Where the stream went wrong.
    struct Failure: Error {
        /// What liblzma found.
        let reason: String
        /// Offset of the compressed input where it was found.
        let inputOffset: UInt64
        /// The memory the stream asked for, when that is why it was refused.
        let memory: UInt64?
    }

    let format: Format
    private var stream = lzma_stream()
    private let output: UnsafeMutableRawBufferPointer
    private var input = DecoderInput()
    private var finished = false

    /// A decoder of `format` handing out blocks of up to `outputSize` bytes, refusing any block or member that needs
    /// more than `memoryLimit` bytes of decoder memory.
    init(_ format: Format, outputSize: Int, memoryLimit: UInt64) throws(Failure) {
        self.format = format
        output = .allocate(byteCount: outputSize, alignment: 64)
        let status =
            switch format {
            case .xz: lzma_stream_decoder(&stream, memoryLimit, CLZMA_CONCATENATED)
            case .lzip: lzma_lzip_decoder(&stream, memoryLimit, CLZMA_CONCATENATED)
            case .lzma: lzma_alone_decoder(&stream, memoryLimit)
            }
        guard status == LZMA_OK else {
            output.deallocate()
            let reason =
                status == LZMA_MEM_ERROR
                ? "not enough memory to decode \(format)" : "the \(format) decoder could not start"
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
            try input.refill(pull)
            stream.next_in = input.bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            stream.avail_in = input.bytes.count
            stream.next_out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
            stream.avail_out = output.count
            // At the end of input, LZMA_FINISH: liblzma then tells a complete stream from a truncated one.
            let status = lzma_code(&stream, input.ended ? LZMA_FINISH : LZMA_RUN)
            let used = input.bytes.count - stream.avail_in
            input.advance(by: used)
            let produced = output.count - stream.avail_out
            switch status {
            case LZMA_OK:
                break
            case LZMA_STREAM_END:
                finished = true
                // lzip and lzma stop before data that follows them; xz has read to the end of input.
                var trailing = !input.bytes.isEmpty
                if !trailing && !input.ended { trailing = !(try pull()).isEmpty }
                if trailing {
                    throw Failure(
                        reason: "data after the end of the \(format) stream", inputOffset: input.consumed, memory: nil)
                }
            case LZMA_MEMLIMIT_ERROR:
                let needed = lzma_memusage(&stream)
                throw Failure(
                    reason: "the stream needs \(needed >> 20) MiB to decode", inputOffset: input.consumed, memory: needed)
            case LZMA_BUF_ERROR where input.ended:
                throw Failure(reason: "the \(format) stream is truncated", inputOffset: input.consumed, memory: nil)
            case LZMA_BUF_ERROR:
                break
            case LZMA_FORMAT_ERROR:
                throw Failure(
                    reason: "data after the end of the \(format) stream, or not \(format)", inputOffset: input.consumed,
                    memory: nil)
            case LZMA_DATA_ERROR, LZMA_OPTIONS_ERROR:
                throw Failure(reason: "the \(format) stream is damaged", inputOffset: input.consumed, memory: nil)
            default:
                throw Failure(
                    reason: "the \(format) stream could not be decoded (liblzma: error \(status.rawValue))",
                    inputOffset: input.consumed, memory: nil)
            }
            if produced > 0 { return UnsafeRawBufferPointer(start: output.baseAddress, count: produced) }
            if status == LZMA_OK && used == 0 && input.ended {
                throw Failure(reason: "the \(format) stream is truncated", inputOffset: input.consumed, memory: nil)
            }
        }
        return UnsafeRawBufferPointer(start: nil, count: 0)
    }

    /// The format `first` (the input's first bytes) starts, as libarchive's bidders would take it: the xz and lzip
    /// magic numbers; for lzma, which has none, exactly libarchive's own test (the properties byte, the dictionary
    /// sizes `lzma` tools write, the "unknown size" mark), so an input goes to the decoder libarchive would give it.
    static func format(of first: UnsafeRawBufferPointer) -> Format? {
        if first.starts(with: [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00]) { return .xz }
        // lzip: "LZIP", version 0 or 1, a dictionary of 2^12 to 2^27 bytes.
        if first.count >= 6, first.starts(with: Array("LZIP".utf8)), first[4] <= 1, (12...27).contains(first[5] & 0x1F) {
            return .lzip
        }
        guard first.count >= 14, first[0] <= (4 * 5 + 4) * 9 + 8 else { return nil }
        var bits = first[0] == 0x5D || first[0] == 0x5E ? 8 : 0
        let unknownSize = (5..<13).allSatisfy { first[$0] == 0xFF }
        if unknownSize { bits += 64 }
        let dictionary = (1..<5).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32(first[$1]) }
        if dictionary >= 0x1000 && dictionary <= 0x0800_0000 && dictionary & (dictionary - 1) == 0 {
            return .lzma
        }
        if dictionary >= 0x0030_0000 && dictionary <= 0x03F0_0000 && dictionary & 0xFFFFF == 0 && bits == 72 {
            return .lzma
        }
        return nil
    }
}
