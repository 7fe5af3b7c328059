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
        /// Polled between blocks; a non-nil signal number stops the read with `.interrupted`.
        public var interruption: @Sendable () -> Int32? = { InterruptSignal.received }

        public init() {}
    }

    /// A block of a member's data, valid until the next call on the reader.
    public struct DataBlock {
        /// The block's offset in the member (ahead of the previous block's end when a sparse hole precedes it).
        public let offset: Int64
        public let bytes: UnsafeRawBufferPointer
    }

    /// The input's name for messages (`-` for stdin).
    public let name: String
    let options: Options
    private let input: FileDescriptor
    private let inputBuffer: UnsafeMutableRawBufferPointer
    private var decoder: OpaquePointer?
    private var parser: OpaquePointer?
    private var decoderStarted = false
    private var decoderFinished = false
    /// An error raised inside a libarchive callback, reported instead of libarchive's generic one.
    private var callbackError: (any Error)?
    private var lastMember: [UInt8]?
    /// Logical bytes of the sparse members so far.
    private var sparseBytes: UInt64 = 0
    var framing = FramingAudit()

    /// Raw bytes read from the input (compressed size).
    public private(set) var inputBytes: UInt64 = 0
    /// Bytes of the uncompressed tar stream so far.
    public private(set) var streamBytes: UInt64 = 0
    /// Fail once the uncompressed tar stream exceeds this many bytes (a decompression bomb).
    public var maxStreamBytes: UInt64 = .max

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
    public init(input: FileDescriptor, name: String, options: Options = Options()) throws {
        ArchiveReader.useUTF8Names()
        self.input = input
        self.name = name
        self.options = options
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
        try input.close()
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
            let pathname = entry.flatMap { archive_entry_pathname($0) }.map { String(cString: $0) }
            throw failure(
                parser, "archive_read_next_header",
                member: pathname ?? lastMember.map { "after \(String(decoding: $0, as: UTF8.self))" })
        }
        let member = Member(entry)
        lastMember = member.pathBytes
        if member.isSparse {
            sparseBytes = sparseBytes.addingReportingOverflow(UInt64(max(0, member.size))).partialValue
            if sparseBytes > options.maxSparseBytes || member.size < 0 {
                throw ArchiveReaderError.sparseTooLarge(member: member.path, limit: options.maxSparseBytes)
            }
        }
        return member
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

    /// Skips the rest of the current member's data.
    public func skipData() throws {
        guard parser != nil else { return }
        while try readBlock() != nil {}
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
        return (0..<count).compactMap { index in archive_filter_name(decoder, index).map { String(cString: $0) } }
            .filter { $0 != "none" }.reversed()
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
            }
            while !decoderFinished {
                var buffer: UnsafeRawPointer?
                var size = 0
                var offset: la_int64_t = 0
                let status = archive_read_data_block(decoder, &buffer, &size, &offset)
                if status == ARCHIVE_EOF {
                    decoderFinished = true
                    break
                }
                guard status == ARCHIVE_OK else { throw failure(decoder, "archive_read_data_block", member: nil) }
                guard size > 0, let buffer else { continue }
                // A small compressed input can expand to terabytes without another read(2): poll here too.
                if let signal = options.interruption() { throw ArchiveReaderError.interrupted(signal: signal) }
                let block = UnsafeRawBufferPointer(start: buffer, count: size)
                try framing.consume(block, at: streamBytes)
                streamBytes += UInt64(size)
                if streamBytes > maxStreamBytes {
                    throw ArchiveReaderError.streamTooLarge(limit: maxStreamBytes)
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

    /// The decoder's read callback: the next block of raw input. Waits in poll(2) with a short timeout, so a
    /// signal handled on another thread is still noticed while a pipe has nothing to read.
    private func readInput(_ out: UnsafeMutablePointer<UnsafeRawPointer?>) -> la_ssize_t {
        while true {
            if let signal = options.interruption() {
                callbackError = ArchiveReaderError.interrupted(signal: signal)
                return -1
            }
            var ready = pollfd(fd: input.rawValue, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, 100)
            // EINTR: the signal was handled during the poll; a read now could block on an empty pipe for good.
            if polled == 0 || (polled < 0 && errno == EINTR) { continue }
            let count = Glibc.read(input.rawValue, inputBuffer.baseAddress, inputBuffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                callbackError = SystemError("read", path: name)
                return -1
            }
            inputBytes += UInt64(count)
            out.pointee = UnsafeRawPointer(inputBuffer.baseAddress)
            return count
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
    private func failure(_ handle: OpaquePointer, _ call: String, member: String?) -> any Error {
        if let callbackError { return callbackError }
        let message = archive_error_string(handle).map { String(cString: $0) } ?? "unknown error"
        if message.contains("Unrecognized archive format") {
            return inputBytes == 0
                ? ArchiveReaderError.empty : ArchiveReaderError.notTar(filters: filterNames.joined(separator: "+"))
        }
        if decoderFinished && framing.enabled && !framing.sawEnd && streamBytes > 0 {
            // All input was read and no end-of-archive mark came: whatever libarchive calls it, the cause is a cut.
            let near = member.map { ", at member '\($0)'" } ?? ""
            return ArchiveReaderError.damaged(
                offset: streamBytes,
                reason: "the archive is truncated (it ends inside a member\(near); libarchive: \(message))")
        }
        return ArchiveReaderError.library(call: call, message: message, member: member)
    }
}
