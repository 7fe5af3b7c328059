// ArchiveReader: reads a tar stream (any compression libarchive decodes) member by member, never extracting.
//
// Two libarchive handles in a pipeline: the decoder (filters + the raw format) turns the input into the
// uncompressed tar stream; the parser (tar formats only) reads that stream through a callback. The callback
// sees every byte of the tar stream, so the reader can count it (bomb limit), audit the framing libarchive
// skips (padding, end-of-archive blocks) and notice SIGINT/SIGTERM between blocks.
import CArchive
import Glibc
import SystemKit

/// Reads an archive once, front to back. Owns the input descriptor and both libarchive handles.
public final class ArchiveReader {
    /// How the reader behaves.
    public struct Options: Sendable {
        /// Bytes per `read(2)` of the input.
        public var blockSize = 128 << 10
        /// Fail on non-zero tar padding and trailing garbage (bytes libarchive skips without looking).
        public var auditsFraming = true
        /// Refuse an archive whose sparse members add up to more than this many bytes (their holes cost nothing
        /// to store but must be hashed and restored: a sparse bomb).
        public var maxSparseBytes: UInt64 = 1 << 36
        /// The file data and uncompressed stream accepted (restore replaces it with ROOT's budget once known).
        public var limit = ExpansionLimit.reading
        /// Polled between blocks; a non-nil signal number stops the read with `.interrupted`.
        public var interruption: @Sendable () -> Int32? = { ProcessSignals.received }
        /// The name of the archive's own metadata member (devicectl's manifest), if any: it is read, never
        /// written out, so its size counts against the stream limit, not against the file data.
        public var metadataMember: [UInt8]?
        /// Called on the reading thread before each read(2) of the input and after each 0.1 s it has waited for
        /// one: a caller that batches the members it has read can hand them over while a long member's data, or a
        /// slow input, is being read.
        public var onRead: (@Sendable () -> Void)?

        /// Options with the defaults above; `metadataMember` names the member whose size is not file data.
        public init(metadataMember: String? = nil) {
            self.metadataMember = metadataMember.map { Array($0.utf8) }
        }
    }

    /// A block of a member's data, valid until the next call on the reader.
    public struct DataBlock {
        /// The block's offset in the member (ahead of the previous block's end when a sparse hole precedes it).
        public let offset: Int64
        /// The data, borrowed from the reader.
        public let bytes: UnsafeRawBufferPointer

        /// A block of `bytes` at `offset` in its member.
        public init(offset: Int64, bytes: UnsafeRawBufferPointer) {
            self.offset = offset
            self.bytes = bytes
        }
    }

    /// The input's name for messages (`-` for stdin).
    public let name: String
    let options: Options
    /// The input; nil once closed.
    private var input: FileDescriptor?
    private let inputBuffer: UnsafeMutableRawBufferPointer
    private var decoder: OpaquePointer?
    private var parser: OpaquePointer?
    private var decoderStarted = false
    private var decoderFinished = false
    /// An error raised inside a libarchive callback, reported instead of libarchive's generic one.
    private var callbackError: (any Error)?
    private var lastMember: [UInt8]?
    /// The gzip layer, decoded here rather than by libarchive (see GzipDecoder); nil for other input.
    private var gzip: GzipDecoder?
    /// The xz, lzip or lzma layer, decoded here under a memory limit (see LzmaDecoder); nil for other input.
    private var lzma: LzmaDecoder?
    /// The zstd decoder's window, checked on the raw input before libarchive sees it.
    private var windowCheck = DecoderWindowCheck()
    /// The first raw block, read to recognise gzip or xz, not yet handed on.
    private var firstBlock: UnsafeRawBufferPointer?
    private var sniffed = false
    /// The input is a regular file holding the tar stream itself (no compression): `skipStream` may seek in it.
    private var plainFile = false
    /// Logical bytes of the sparse members so far.
    private var sparseBytes: UInt64 = 0
    /// Declared bytes of the regular members so far (sparse ones at their logical size).
    private var declaredBytes: UInt64 = 0
    var framing = FramingAudit()

    /// Raw bytes of the input so far (compressed size), those passed over unread included.
    public private(set) var inputBytes: UInt64 = 0
    /// Bytes of member data passed over unread (`skipStream`): part of `inputBytes` and `streamBytes`.
    public private(set) var skippedBytes: UInt64 = 0
    /// The input's size when it is a regular file (fstat when opened); nil for standard input, a pipe, a device.
    public let inputSize: UInt64?
    /// Bytes of the uncompressed tar stream so far.
    public private(set) var streamBytes: UInt64 = 0
    /// Fail at the member whose declared size takes the file data past the limit, and once the uncompressed tar
    /// stream exceeds its share (a decompression bomb). Starts as `Options.limit`.
    public var limit: ExpansionLimit

    /// Opens `path` (or stdin for `-`) and starts decoding. Throws `SystemError` or `ArchiveReaderError`.
    public convenience init(path: String, options: Options = Options()) throws {
        let input: FileDescriptor
        if path == "-" {
            input = FileDescriptor(
                rawValue: try SystemError.check("dup", path: "stdin") { dup(STDIN_FILENO) }, path: "-")
        } else {
            input = try FileDescriptor.open(path, flags: O_RDONLY)
        }
        try self.init(input: input, name: path, options: options)
    }

    /// Reads from `input` (taking ownership).
    public init(input: consuming FileDescriptor, name: String, options: Options = Options()) throws {
        ArchiveReader.useUTF8Names()
        let status = Kernel.status(ofDescriptor: input.rawValue)
        self.input = consume input
        self.name = name
        self.options = options
        inputSize = status.flatMap { $0.kind == .regular && $0.size > 0 ? $0.size : nil }
        limit = options.limit
        inputBuffer = .allocate(byteCount: max(4096, options.blockSize), alignment: 64)
        framing.enabled = options.auditsFraming
        decoder = archive_read_new()
        parser = archive_read_new()
        guard let decoder, let parser else {
            throw ArchiveReaderError.library(call: "archive_read_new", message: "out of memory", member: nil)
        }
        // Decoders that run in process (no external helper programs for hostile input).
        _ = archive_read_support_filter_none(decoder)
        for enable in [
            archive_read_support_filter_gzip, archive_read_support_filter_bzip2, archive_read_support_filter_xz,
            archive_read_support_filter_lzma, archive_read_support_filter_lzip, archive_read_support_filter_zstd,
            archive_read_support_filter_lz4, archive_read_support_filter_compress,
        ] {
            _ = enable(decoder)
        }
        _ = archive_read_support_format_raw(decoder)
        _ = archive_read_support_format_tar(parser)  // ustar, pax, GNU tar; nothing else
        let context = Unmanaged.passUnretained(self).toOpaque()
        _ = archive_read_set_skip_callback(parser) { _, context, request in
            Unmanaged<ArchiveReader>.fromOpaque(context!).takeUnretainedValue().skipStream(request)
        }
        try check(
            archive_read_open(
                decoder, context, nil,
                { _, context, out in
                    Unmanaged<ArchiveReader>.fromOpaque(context!).takeUnretainedValue().readInput(out!)
                }, nil), decoder, "archive_read_open")
        try check(
            archive_read_open(
                parser, context, nil,
                { _, context, out in
                    Unmanaged<ArchiveReader>.fromOpaque(context!).takeUnretainedValue().readStream(out!)
                }, nil), parser, "archive_read_open")
    }

    deinit {
        if let parser { archive_read_free(parser) }
        if let decoder { archive_read_free(decoder) }
        inputBuffer.deallocate()
    }

    /// Frees the handles and closes the input.
    public func close() throws {
        if let parser { archive_read_free(parser) }
        if let decoder { archive_read_free(decoder) }
        parser = nil
        decoder = nil
        try input.take()?.close()
    }

    // MARK: - Members

    /// The next member's header, or nil after the last one (the rest of the stream then checked and drained).
    public func next() throws -> Member? {
        guard let parser else { return nil }
        var entry: OpaquePointer?
        let status = archive_read_next_header(parser, &entry)
        if status == ARCHIVE_EOF {
            try finish()
            return nil
        }
        guard status == ARCHIVE_OK, let entry else {
            if let pathname = entry.flatMap({ archive_entry_pathname($0) }).map({ String(cString: $0) }) {
                throw failure(parser, "archive_read_next_header", member: pathname)
            }
            throw failure(
                parser, "archive_read_next_header", member: lastMember.map { String(decoding: $0, as: UTF8.self) },
                afterMember: true)
        }
        let member = Member(entry)
        lastMember = member.pathBytes
        if member.isSparse {
            sparseBytes = sparseBytes.addingReportingOverflow(UInt64(max(0, member.size))).partialValue
            if sparseBytes > options.maxSparseBytes || member.size < 0 {
                throw ArchiveReaderError.sparseTooLarge(member: member.path, limit: options.maxSparseBytes)
            }
        }
        // The manifest is read, never written: its size counts against the stream, not the file data.
        if member.kind == .regular && !isMetadataMember(member.pathBytes) {
            let (total, overflow) = declaredBytes.addingReportingOverflow(UInt64(max(0, member.size)))
            declaredBytes = overflow ? .max : total
            if declaredBytes > limit.dataBytes {
                throw ArchiveReaderError.dataTooLarge(member: member.path, total: declaredBytes, limit: limit.dataBytes)
            }
        }
        return member
    }

    /// Whether `path` names the metadata member (as restore normalises names).
    private func isMetadataMember(_ path: [UInt8]) -> Bool {
        guard let name = options.metadataMember else { return false }
        return MemberPath.names(path, name)
    }

    /// The next block of the current member's data, or nil at its end.
    public func readBlock() throws -> DataBlock? {
        guard let parser else { return nil }
        var buffer: UnsafeRawPointer?
        var size = 0
        var offset: la_int64_t = 0
        let status = archive_read_data_block(parser, &buffer, &size, &offset)
        if status == ARCHIVE_EOF { return nil }
        guard status == ARCHIVE_OK else {
            throw failure(
                parser, "archive_read_data_block", member: lastMember.map { String(decoding: $0, as: UTF8.self) })
        }
        return DataBlock(offset: offset, bytes: UnsafeRawBufferPointer(start: buffer, count: size))
    }

    /// Skips the rest of the current member's data: unread where `skipStream` can pass over it, else read.
    public func skipData() throws {
        guard let parser else { return }
        guard archive_read_data_skip(parser) == ARCHIVE_OK else {
            throw failure(
                parser, "archive_read_data_skip", member: lastMember.map { String(decoding: $0, as: UTF8.self) })
        }
    }

    /// pax header keys libarchive does not interpret, seen so far (a few), and how many in all. A devicectl
    /// backup never writes such keys, so in an archive with a manifest they mean the archive was altered.
    public var unknownPaxKeys: (first: [String], count: Int) { (framing.unknownPaxKeys, framing.unknownPaxKeyCount) }

    /// libarchive's name for the format, e.g. `POSIX pax interchange format`.
    public var formatName: String {
        parser.flatMap { archive_format_name($0) }.map { String(cString: $0) } ?? "unknown"
    }

    /// The compression filters, outermost first (empty for a plain tar).
    public var filterNames: [String] {
        guard let decoder else { return [] }
        let count = archive_filter_count(decoder)
        let names = (0..<count).compactMap { index in archive_filter_name(decoder, index).map { String(cString: $0) } }
            .filter { $0 != "none" }.reversed()
        return (gzip == nil ? [] : ["gzip"]) + (lzma.map { [$0.format.rawValue] } ?? []) + names
    }

    // MARK: - Stream plumbing

    /// After the end-of-archive mark: the rest of the tar stream must be zeros; read it to the end.
    private func finish() throws {
        var out: UnsafeRawPointer?
        while !decoderFinished {
            if readStream(&out) < 0 { break }
        }
        if let callbackError { throw callbackError }
        try framing.finish(at: streamBytes)
    }

    /// The parser's read callback: the next block of the uncompressed tar stream.
    private func readStream(_ out: UnsafeMutablePointer<UnsafeRawPointer?>) -> la_ssize_t {
        guard let decoder, callbackError == nil else { return -1 }
        do {
            if !decoderStarted {
                var entry: OpaquePointer?
                let status = archive_read_next_header(decoder, &entry)
                if status == ARCHIVE_EOF {
                    decoderFinished = true
                    return 0
                }
                guard status == ARCHIVE_OK else { throw failure(decoder, "archive_read_next_header", member: nil) }
                decoderStarted = true
                // devicectl, GNU tar and bsdtar compress once; twice is how 171 kB expand to a terabyte.
                let filters = filterNames
                if filters.count > 1 { throw ArchiveReaderError.compressedTwice(filters: filters) }
                plainFile = filters.isEmpty && inputSize != nil
            }
            while !decoderFinished {
                var buffer: UnsafeRawPointer?
                var size = 0
                var offset: la_int64_t = 0
                let status = archive_read_data_block(decoder, &buffer, &size, &offset)
                if status == ARCHIVE_EOF {
                    decoderFinished = true
                    try checkInputEnded()
                    break
                }
                guard status == ARCHIVE_OK else { throw failure(decoder, "archive_read_data_block", member: nil) }
                guard size > 0, let buffer else { continue }
                // A small compressed input can expand to terabytes without another read(2): poll here too.
                if let signal = options.interruption() { throw ArchiveReaderError.interrupted(signal: signal) }
                let block = UnsafeRawBufferPointer(start: buffer, count: size)
                try framing.consume(block, at: streamBytes)
                streamBytes += UInt64(size)
                if streamBytes > limit.streamBytes {
                    throw ArchiveReaderError.streamTooLarge(limit: limit.streamBytes)
                }
                out.pointee = buffer
                return size
            }
            return 0
        } catch {
            callbackError = error
            return -1
        }
    }

    /// The parser's skip callback (libarchive calls it for what a skip asks beyond the data it holds): passes over
    /// member data unread by moving the input's offset, as `tar -t` does. Only in a regular file with no
    /// compression, only when every byte read from the input has reached the parser (so the input's offset is the
    /// stream's), and only what the framing audit calls skippable: the rest of the current member's data, not its
    /// padding, not past the file's end nor the stream limit. Anything else returns 0 and libarchive reads it through
    /// `readStream`, so every byte the audit checks is still read.
    private func skipStream(_ request: la_int64_t) -> la_int64_t {
        guard request > 0, callbackError == nil, plainFile, !decoderFinished, inputBytes == streamBytes,
            let inputSize, let descriptor = input?.rawValue
        else { return 0 }
        let count = min(UInt64(request), framing.skippableBytes, inputSize > inputBytes ? inputSize - inputBytes : 0)
        // Past the stream limit, read instead: `readStream` fails at the same byte as it would have.
        guard count > 0, streamBytes + count <= limit.streamBytes, lseek(descriptor, off_t(count), SEEK_CUR) >= 0
        else { return 0 }
        framing.skip(count)
        skippedBytes += count
        inputBytes += count
        streamBytes += count
        return la_int64_t(count)
    }

    /// The decoder's read callback: the input, with a gzip, xz, lzip or lzma layer already decoded (libarchive decodes
    /// the rest).
    private func readInput(_ out: UnsafeMutablePointer<UnsafeRawPointer?>) -> la_ssize_t {
        do {
            let block: UnsafeRawBufferPointer
            if !sniffed {
                sniffed = true
                let first = try readRaw(atLeast: 14)
                if let format = Self.foreignFormat(first) { throw ArchiveReaderError.foreignFormat(format) }
                if first.count >= 3 && first[0] == 0x1F && first[1] == 0x8B && first[2] == 8 {  // gzip, deflate
                    gzip = try GzipDecoder(outputSize: inputBuffer.count)
                    firstBlock = first
                } else if let format = LzmaDecoder.format(of: first) {
                    lzma = try LzmaDecoder(format, outputSize: inputBuffer.count, memoryLimit: Self.lzmaMemoryLimit)
                    firstBlock = first
                } else {
                    try windowCheck.feed(first)
                    out.pointee = first.baseAddress
                    return first.count
                }
            }
            let pull = { () throws -> UnsafeRawBufferPointer in
                if let first = self.firstBlock {
                    self.firstBlock = nil
                    return first
                }
                return try self.readRaw()
            }
            if let gzip {
                block = try gzip.read(pull: pull)
            } else if let lzma {
                block = try lzma.read(pull: pull)
            } else {
                block = try readRaw()
                try windowCheck.feed(block)
            }
            out.pointee = block.baseAddress
            return block.count
        } catch let refusal as DecoderWindowCheck.Refusal {
            callbackError = ArchiveReaderError.badCompression(
                filter: refusal.filter, offset: refusal.offset,
                reason: "the stream asks for a \(refusal.window >> 20) MiB decoding window; devicectl decodes at most "
                    + "\(DecoderWindowCheck.maximum >> 20) MiB (what its own highest levels need)")
            return -1
        } catch let failure as GzipDecoder.Failure {
            callbackError = ArchiveReaderError.badCompression(
                filter: "gzip", offset: failure.inputOffset, reason: failure.reason)
            return -1
        } catch let failure as LzmaDecoder.Failure {
            let reason =
                failure.memory.map {
                    "the stream asks for a \($0 >> 20) MiB decoding window; devicectl decodes at most "
                        + "\(DecoderWindowCheck.maximum >> 20) MiB (what its own highest levels need)"
                } ?? failure.reason
            callbackError = ArchiveReaderError.badCompression(
                filter: lzma?.format.rawValue ?? "xz", offset: failure.inputOffset, reason: reason)
            return -1
        } catch {
            callbackError = error
            return -1
        }
    }

    /// The next block of raw input (empty at its end), at least `minimum` bytes unless the input ends first.
    /// Waits in poll(2) with a short timeout, so a signal handled on another thread is still noticed while a
    /// pipe has nothing to read.
    private func readRaw(atLeast minimum: Int = 1) throws -> UnsafeRawBufferPointer {
        var filled = 0
        while filled < minimum {
            if let signal = options.interruption() { throw ArchiveReaderError.interrupted(signal: signal) }
            options.onRead?()
            // A regular file is always ready (poll(2) says so at once): only a pipe, a socket or a device can stall.
            if inputSize == nil {
                var ready = pollfd(fd: input?.rawValue ?? -1, events: Int16(POLLIN), revents: 0)
                let polled = poll(&ready, 1, 100)
                if polled == 0 { continue }
                if polled < 0 {
                    // EINTR: a signal arrived while waiting; the check above sees it. Reading now would block
                    // in read(2) on a stalled pipe until the next signal.
                    if errno == EINTR { continue }
                    throw SystemError("poll", path: name)
                }
            }
            let count = Glibc.read(input?.rawValue ?? -1, inputBuffer.baseAddress! + filled, inputBuffer.count - filled)
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError("read", path: name)
            }
            if count == 0 { break }
            inputBytes += UInt64(count)
            filled += count
        }
        return UnsafeRawBufferPointer(start: inputBuffer.baseAddress, count: filled)
    }

    /// The most memory the xz, lzip or lzma decoder may use: a dictionary as large as `DecoderWindowCheck.maximum`
    /// (what `xz -8`, devicectl's highest xz level, writes) and the decoder's own state.
    static let lzmaMemoryLimit = DecoderWindowCheck.maximum + (1 << 20)

    /// The archive format other than tar that `start` (the input's first bytes) begins with, if a common one.
    static func foreignFormat(_ start: UnsafeRawBufferPointer) -> String? {
        let magics: [(bytes: [UInt8], name: String)] = [
            ([0x50, 0x4B, 0x03, 0x04], "zip"), ([0x50, 0x4B, 0x05, 0x06], "zip"), ([0x50, 0x4B, 0x07, 0x08], "zip"),
            ([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C], "7z"), (Array("Rar!\u{1A}\u{07}".utf8), "RAR"),
            (Array("070701".utf8), "cpio"), (Array("070702".utf8), "cpio"), (Array("070707".utf8), "cpio"),
            (Array("xar!".utf8), "xar"),
        ]
        return magics.first { start.starts(with: $0.bytes) }?.name
    }

    /// At the end of libarchive's decompressed stream: the compressed input must end there too. libarchive stops
    /// reading after the last bzip2, lz4 or compress stream without looking at what follows (gzip: GzipDecoder; xz,
    /// lzip and lzma: LzmaDecoder).
    private func checkInputEnded() throws {
        guard gzip == nil, lzma == nil, let decoder, let filter = filterNames.first else { return }
        let used = UInt64(max(0, archive_filter_bytes(decoder, -1)))
        var extra = inputBytes > used ? inputBytes - used : 0
        if extra == 0 { extra = UInt64(try readRaw().count) }
        if extra > 0 {
            throw ArchiveReaderError.badCompression(
                filter: filter, offset: used,
                reason: "data after the end of the \(filter) stream (\(extra) or more bytes)")
        }
    }

    /// pax names are UTF-8; libarchive converts them to the locale's charset, which in the C locale fails for
    /// every non-ASCII name (a warning, which the reader treats as fatal). Use C.UTF-8 unless already UTF-8.
    static func useUTF8Names() {
        if let codeset = nl_langinfo(nl_item(CODESET)), String(cString: codeset) == "UTF-8" { return }
        _ = setlocale(LC_CTYPE, "C.UTF-8")
    }

    // MARK: - Errors

    private func check(_ status: Int32, _ handle: OpaquePointer, _ call: String) throws {
        if status != ARCHIVE_OK { throw failure(handle, call, member: nil) }
    }

    /// The error to report: one raised in a callback first (it is the cause), else libarchive's message.
    private func failure(
        _ handle: OpaquePointer, _ call: String, member: String?, afterMember: Bool = false
    ) -> any Error {
        if let callbackError { return callbackError }
        let libraryMessage = archive_error_string(handle).map { String(cString: $0) }
        let message = libraryMessage ?? "unreadable tar data"
        if message.contains("Unrecognized archive format") {
            return inputBytes == 0
                ? ArchiveReaderError.empty : ArchiveReaderError.notTar(filters: filterNames.joined(separator: "+"))
        }
        if decoderFinished && framing.enabled && !framing.sawEnd && streamBytes > 0 {
            // All input was read and no end-of-archive mark came: whatever libarchive calls it, the cause is a cut.
            // After a member's header, the cut is in its data or in a header after it (libarchive skips the data
            // when it looks for the next header).
            let place =
                member.map { afterMember ? "after the header of member '\($0)'" : "inside member '\($0)'" }
                ?? "inside a member"
            return ArchiveReaderError.damaged(
                offset: streamBytes,
                reason: "the archive is truncated (it ends \(place)"
                    + (libraryMessage.map { "; libarchive: \($0)" } ?? "") + ")")
        }
        return ArchiveReaderError.library(call: call, message: message, member: member, afterMember: afterMember)
    }
}
