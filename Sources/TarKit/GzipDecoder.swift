// GzipDecoder: a gzip stream (RFC 1952) decoded with zlib, checked where libarchive's gzip reader does not look.
//
// libarchive 3.6 inflates raw deflate data and skips each member's 8-byte trailer unread ("TODO: Verify the
// length and CRC"), and stops quietly at the first bytes that are not another gzip header. zlib in gzip mode
// checks the CRC-32 and the length of every member; after the last member only end of input is accepted. So a
// damaged trailer or data appended to a backup fails restore, verify and list alike (the reader uses this for
// every gzip input, before libarchive sees it).
import CZlib

/// Inflates a gzip stream pulled from a source of raw blocks; concatenated members are one stream (as gzip -d).
final class GzipDecoder {
    /// Where the gzip stream went wrong.
    struct Failure: Error {
        /// What zlib or the framing check found.
        let reason: String
        /// Offset of the compressed input where it was found.
        let inputOffset: UInt64
    }

    private var stream = z_stream()
    private let output: UnsafeMutableRawBufferPointer
    private var input = DecoderInput()
    /// The current member ended (Z_STREAM_END); the next byte must start another member or be the end of input.
    private var betweenMembers = false
    private var finished = false

    /// A decoder handing out blocks of up to `outputSize` bytes.
    init(outputSize: Int) throws {
        output = .allocate(byteCount: outputSize, alignment: 64)
        // 15 + 16: a 32 KiB window, gzip wrapper only (zlib then checks each member's CRC-32 and ISIZE).
        let status = inflateInit2_(&stream, 15 + 16, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            output.deallocate()
            let reason =
                status == Z_MEM_ERROR ? "not enough memory to decode gzip" : "the gzip decoder could not start"
            throw Failure(reason: reason, inputOffset: 0)
        }
    }

    deinit {
        inflateEnd(&stream)
        output.deallocate()
    }

    /// The next block of decoded bytes, empty at the end of the stream. `pull` returns the next raw block
    /// (empty at end of input); its bytes must stay valid until the next call of `pull`.
    func read(pull: () throws -> UnsafeRawBufferPointer) throws -> UnsafeRawBufferPointer {
        while !finished {
            try input.refill(pull)
            if betweenMembers {
                if input.bytes.isEmpty {
                    finished = true  // end of input right after a member: the stream is complete
                    break
                }
                // Another member must start here (gzip -d accepts concatenated members); anything else is data
                // appended after the compressed stream.
                guard input.bytes[0] == 0x1F else {
                    throw Failure(
                        reason: "data after the end of the gzip stream (\(input.bytes.count) or more bytes)",
                        inputOffset: input.consumed)
                }
                inflateReset(&stream)
                betweenMembers = false
            }
            if input.bytes.isEmpty {
                throw Failure(
                    reason: "the gzip stream is truncated (it ends inside a member)", inputOffset: input.consumed)
            }
            stream.next_in = UnsafeMutablePointer(mutating: input.bytes.baseAddress!.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(input.bytes.count)
            stream.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(output.count)
            let status = inflate(&stream, Z_NO_FLUSH)
            input.advance(by: input.bytes.count - Int(stream.avail_in))
            let produced = output.count - Int(stream.avail_out)
            switch status {
            case Z_OK, Z_BUF_ERROR:
                break
            case Z_STREAM_END:
                betweenMembers = true
            default:
                let message = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                throw Failure(reason: "the gzip stream is damaged (zlib: \(message))", inputOffset: input.consumed)
            }
            if produced > 0 { return UnsafeRawBufferPointer(start: output.baseAddress, count: produced) }
        }
        return UnsafeRawBufferPointer(start: nil, count: 0)
    }
}
