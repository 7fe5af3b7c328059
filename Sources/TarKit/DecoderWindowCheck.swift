// DecoderWindowCheck: the memory a zstd or xz decoder will need, read from the compressed stream's own headers
// before libarchive decodes it.

/// A decoder keeps a window (zstd) or dictionary (xz) as large as the stream's header asks for: up to 128 MiB
/// (zstd) or 1 GiB (xz, libarchive's memory limit), so a small hostile archive could make every read cost that much
/// memory. This check walks the raw compressed input as it is read and refuses a zstd frame or xz block whose window
/// exceeds `maximum` before the decoder is given those bytes. zstd frames are walked block by block without decoding
/// (every frame's header is seen; skippable frames are skipped). xz block headers need not carry their size, so
/// the first block header of the stream is checked (xz and libarchive write one dictionary size for a whole stream).
struct DecoderWindowCheck {
    /// The largest window accepted: what `backup` writes at its highest levels (zstd 19: 8 MiB; xz 8: 32 MiB).
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
        case xzStreamRest, xzBlockSize, xzBlock
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
        case .xzStreamRest: need = 8
        case .xzBlockSize: need = 1
        case .xzBlock: need = bytes ?? 1
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
            } else if offset == 4 && bytes == [0xFD, 0x37, 0x7A, 0x58] {
                expect(.xzStreamRest)
            } else {
                // Not zstd or xz (gzip, bzip2, a plain tar), or data after the last zstd frame, which the
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
        case .xzStreamRest:
            guard bytes.prefix(2) == [0x5A, 0x00] else {
                finished = true
                return
            }
            expect(.xzBlockSize)
        case .xzBlockSize:
            guard bytes[0] != 0 else {
                finished = true  // the index: a stream without blocks
                return
            }
            let size = (Int(bytes[0]) + 1) * 4
            expect(.xzBlock, bytes: size - 1)
        case .xzBlock:
            finished = true
            if let dictionary = Self.lzma2Dictionary(blockHeader: bytes), dictionary > Self.maximum {
                throw Refusal(filter: "xz", offset: headerOffset, window: dictionary)
            }
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

    /// The LZMA2 dictionary size an xz block header (after its size byte) declares; nil when it has none.
    private static func lzma2Dictionary(blockHeader bytes: [UInt8]) -> UInt64? {
        guard let flags = bytes.first else { return nil }
        var position = 1
        func varint() -> UInt64? {
            var value: UInt64 = 0
            for shift in stride(from: 0, to: 63, by: 7) {
                guard position < bytes.count else { return nil }
                let byte = bytes[position]
                position += 1
                value |= UInt64(byte & 0x7F) << UInt64(shift)
                if byte & 0x80 == 0 { return value }
            }
            return nil
        }
        if flags & 0x40 != 0 { guard varint() != nil else { return nil } }
        if flags & 0x80 != 0 { guard varint() != nil else { return nil } }
        for _ in 0...(flags & 3) {
            guard let id = varint(), let size = varint(), position + Int(size) <= bytes.count else { return nil }
            if id == 0x21 && size == 1 {
                let property = bytes[position]
                guard property <= 40 else { return UInt64.max }
                return property == 40 ? 0xFFFF_FFFF : UInt64(2 | (property & 1)) << UInt64(property / 2 + 11)
            }
            position += Int(size)
        }
        return nil
    }

    private static func littleEndian(_ bytes: [UInt8]) -> UInt64 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}
