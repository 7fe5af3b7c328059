// DecoderWindowCheck: the memory a zstd decoder will need, read from the compressed stream's own headers before
// libarchive decodes it.

/// A zstd decoder keeps a window as large as the frame's header asks for, up to 128 MiB, so a small hostile archive
/// could make every read cost that much memory. This check walks the raw compressed input as it is read and refuses
/// a zstd frame whose window exceeds `maximum` before the decoder is given those bytes: frames are walked block by
/// block without decoding (every frame's header is seen; skippable frames are skipped). xz, lzip and lzma are decoded
/// by devicectl itself under the same limit (`LzmaDecoder`: their blocks and members cannot be found without
/// decoding).
struct DecoderWindowCheck {
    /// The largest window accepted: what `backup` writes at its highest levels (xz 8: a 32 MiB dictionary; zstd: its
    /// 2 MiB frames, 8 MiB at level 19 in archives of one frame, as before 2026-12-03, and from `zstd -19`).
    static let maximum: UInt64 = 32 << 20

    /// A refused stream: the format, the offset of the header in the input and the window it asks for.
    struct Refusal: Error {
        let filter: String
        let offset: UInt64
        let window: UInt64
    }

    /// What the next `need` bytes are.
    private enum Header {
        case magic, zstdFrameDescriptor, zstdFrameRest(descriptor: UInt8), zstdSkippableSize, zstdBlock(checksum: Bool)
    }

    private var header = Header.magic
    private var need = 4
    private var pending: [UInt8] = []
    /// Bytes to pass over (block contents), then `afterSkip`.
    private var skip: UInt64 = 0
    private var afterSkip = Header.magic
    private var checksum = false
    private var finished = false
    private var offset: UInt64 = 0
    private var headerOffset: UInt64 = 0

    /// Feeds the next raw input bytes; throws `Refusal` at a header asking for too large a window.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) throws {
        var index = 0
        while index < bytes.count && !finished {
            if skip > 0 {
                let taken = Int(min(skip, UInt64(bytes.count - index)))
                index += taken
                offset += UInt64(taken)
                skip -= UInt64(taken)
                if skip == 0 { expect(afterSkip) }
                continue
            }
            if pending.isEmpty { headerOffset = offset }
            let taken = min(need - pending.count, bytes.count - index)
            pending.append(contentsOf: bytes[index..<(index + taken)])
            index += taken
            offset += UInt64(taken)
            if pending.count == need { try interpret() }
        }
    }

    private mutating func expect(_ next: Header, bytes: Int? = nil) {
        header = next
        pending = []
        switch next {
        case .magic: need = 4
        case .zstdFrameDescriptor: need = 1
        case .zstdFrameRest(let descriptor): need = bytes ?? Self.frameHeaderLength(descriptor)
        case .zstdSkippableSize: need = 4
        case .zstdBlock: need = 3
        }
    }

    private mutating func interpret() throws {
        let bytes = pending
        switch header {
        case .magic:
            let magic = Self.littleEndian(bytes)
            if magic == 0xFD2F_B528 {
                expect(.zstdFrameDescriptor)
            } else if magic & 0xFFFF_FFF0 == 0x184D_2A50 && offset > 4 {
                expect(.zstdSkippableSize)
            } else {
                // Not zstd (gzip, xz, bzip2, a plain tar), or data after the last zstd frame, which the
                // decoder and the end-of-stream check report: nothing more to check here.
                finished = true
            }
        case .zstdSkippableSize:
            skip = Self.littleEndian(bytes)
            afterSkip = .magic
            if skip == 0 { expect(.magic) }
        case .zstdFrameDescriptor:
            checksum = bytes[0] & 0x04 != 0
            expect(.zstdFrameRest(descriptor: bytes[0]))
            if need == 0 { try frame(descriptor: bytes[0], rest: []) }
        case .zstdFrameRest(let descriptor):
            try frame(descriptor: descriptor, rest: bytes)
        case .zstdBlock(let checksum):
            let value = Self.littleEndian(bytes)
            let last = value & 1 == 1
            let type = (value >> 1) & 3
            guard type != 3 else {
                finished = true  // reserved: the decoder refuses it
                return
            }
            skip = type == 1 ? 1 : value >> 3
            let next: Header = last ? .magic : .zstdBlock(checksum: checksum)
            if last && checksum { skip += 4 }
            afterSkip = next
            if skip == 0 { expect(next) }
        }
    }

    /// A zstd frame header: the window it needs (Window_Descriptor, or the content size of a single segment).
    private mutating func frame(descriptor: UInt8, rest: [UInt8]) throws {
        let singleSegment = descriptor & 0x20 != 0
        var window: UInt64
        var position = 0
        if singleSegment {
            window = 0
        } else {
            let exponent = UInt64(rest[0] >> 3), mantissa = UInt64(rest[0] & 7)
            let base: UInt64 = 1 << (10 + exponent)
            window = base + (base / 8) * mantissa
            position = 1
        }
        position += [0, 1, 2, 4][Int(descriptor & 3)]
        if singleSegment {
            let field = Array(rest[position...])
            window = Self.littleEndian(field) + (field.count == 2 ? 256 : 0)
        }
        if window > Self.maximum { throw Refusal(filter: "zstd", offset: headerOffset, window: window) }
        expect(.zstdBlock(checksum: checksum))
    }

    /// The length of a zstd frame header after its descriptor byte.
    private static func frameHeaderLength(_ descriptor: UInt8) -> Int {
        let singleSegment = descriptor & 0x20 != 0
        let contentSize = [singleSegment ? 1 : 0, 2, 4, 8][Int(descriptor >> 6)]
        return (singleSegment ? 0 : 1) + [0, 1, 2, 4][Int(descriptor & 3)] + contentSize
    }

    private static func littleEndian(_ bytes: [UInt8]) -> UInt64 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}
