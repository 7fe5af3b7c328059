// StreamCompressor: the archive writer's last stage: compresses (on a thread of its own) and writes the tar stream.
//
// The pax formatter hands the uncompressed stream over in 250 KiB blocks. With compression, a thread feeds
// them to a second libarchive handle (the raw format and the compression filter: the same code, so the same
// bytes, as one handle with a filter): reading and formatting on one core (one thread: see
// `BackupEngine.formatsInline`), compressing and write(2) on the other, so a backup keeps both cores busy even
// when the compressor is its heaviest part. A plain tar's blocks are written at once, on the formatting thread:
// measured, a third thread there cost 3-6% in hand-offs and bought nothing (the reading and formatting threads
// already fill both cores).
import CArchive
import Glibc
import SystemKit

/// Takes the uncompressed tar stream, block by block, and writes it, or compresses and writes it on its own
/// thread.
final class StreamCompressor: @unchecked Sendable {
    /// Blocks in flight besides the one being filled (1.75 MiB in all): the reading thread reads and hashes
    /// a large file while the compressor works through what it queued before (16 to 128 blocks: at most 2%
    /// faster, within the noise, for 2.5 to 30 MiB more).
    static let depth = 6

    /// Worker threads the compressor uses (xz: 2 when this libarchive accepts `threads=2`; else 1).
    let compressionThreads: Int
    private let sink: Sink
    /// libarchive's raw format with the compression filter; nil for a plain tar, whose blocks are written at
    /// once, on the producer's thread (there is no stage thread then).
    private let compressor: OpaquePointer?
    /// Full blocks to the compressor's thread and back (a sleeping side wakes once `wakeAfter` blocks are
    /// ready for it: a context switch per 250 KiB block cost more than the blocks); nil for a plain tar.
    private let handOff: HandOff<Block, ArchiveWriterError>?
    static let wakeAfter = 2
    /// The compressor's thread, joined by `finish` or `cancel`.
    private var worker: WorkerThread?
    /// A plain tar's failure (producer side only).
    private var plainFailure: ArchiveWriterError?
    /// The block being filled (producer side only).
    private var current: Block
    /// Bytes of the uncompressed stream so far (producer side only).
    private var streamBytes = 0

    /// Starts the stage on `descriptor` (borrowed). Throws when the compressor cannot be set up.
    init(descriptor: Int32, compression: Compression, level: Int?, name: String) throws(ArchiveWriterError) {
        sink = Sink(descriptor: descriptor, name: name)
        current = Block(capacity: Int(ArchiveWriter.blockSize))
        if compression == .none {
            compressor = nil
            handOff = nil
            compressionThreads = 1
            return
        }
        let (compressor, threads) = try StreamCompressor.openCompressor(compression, level: level, sink: sink)
        self.compressor = compressor
        compressionThreads = threads
        let handOff = HandOff<Block, ArchiveWriterError>(
            items: (0..<StreamCompressor.depth).map { _ in Block(capacity: Int(ArchiveWriter.blockSize)) },
            wakeAfter: StreamCompressor.wakeAfter)
        self.handOff = handOff
        do {
            worker = try WorkerThread { [self] in run() }
        } catch {
            handOff.fail(ArchiveWriterError(call: "pthread_create", message: error.reason))
        }
    }

    deinit {
        if let compressor {
            archive_write_fail(compressor)
            archive_write_free(compressor)
        }
    }

    /// Bytes written to the descriptor so far (after compression, padding included); final after `finish`
    /// (read it only then, or for a plain tar: the compressor's thread writes it).
    var bytesWritten: Int64 { sink.bytes }

    /// Why the stage stopped, if it did (a failed write or compression).
    var error: ArchiveWriterError? { handOff?.failure ?? plainFailure }

    // MARK: - Producer

    /// Copies `bytes` into the stream. False once the stage has failed (its `error` says why).
    func append(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var done = 0
        while done < bytes.count {
            let count = min(bytes.count - done, current.capacity - current.used)
            (current.base + current.used).copyMemory(from: bytes.baseAddress! + done, byteCount: count)
            current.used += count
            done += count
            if current.used == current.capacity, !submit() { return false }
        }
        streamBytes += bytes.count
        return true
    }

    /// Ends the stream: pads a plain tar to a whole 10240-byte record (as GNU tar does), waits for the last
    /// block to be compressed and written, and flushes the compressor. Throws the stage's failure.
    func finish() throws(ArchiveWriterError) {
        guard let handOff, let compressor else {
            let padding = (10_240 - streamBytes % 10_240) % 10_240
            let zeros = [UInt8](repeating: 0, count: padding)
            _ = zeros.withUnsafeBytes { append($0) }
            if current.used > 0 { _ = submit() }
            if let plainFailure { throw plainFailure }
            return
        }
        if current.used > 0 { handOff.submit(current) }
        handOff.close()
        worker.take()?.join()
        if let failure = handOff.failure { throw failure }
        if archive_write_finish_entry(compressor) != ARCHIVE_OK || archive_write_close(compressor) != ARCHIVE_OK {
            throw ArchiveWriterError(call: "archive_write_close", message: errorString(compressor))
        }
    }

    /// Stops the thread without finishing the stream (the backup failed); queued blocks are dropped.
    func cancel() {
        let cancelled = ArchiveWriterError(call: "archive_write", message: "cancelled")
        if let handOff {
            handOff.fail(cancelled)
            worker.take()?.join()
        } else if plainFailure == nil {
            plainFailure = cancelled
        }
    }

    /// Hands the full block to the thread and takes a spare one (waiting while the thread is behind); without
    /// a thread, writes it.
    private func submit() -> Bool {
        guard let handOff else {
            if plainFailure == nil {
                plainFailure = output(UnsafeRawBufferPointer(start: current.base, count: current.used))
            }
            current.used = 0
            return plainFailure == nil
        }
        guard handOff.submit(current), let spare = handOff.takeSpare() else { return false }
        current = spare
        current.used = 0
        return true
    }

    // MARK: - Thread

    private func run() {
        guard let handOff else { return }
        while let block = handOff.next() {
            let problem = output(UnsafeRawBufferPointer(start: block.base, count: block.used))
            handOff.recycle(block)
            if let problem {
                handOff.fail(problem)
                return
            }
        }
    }

    /// Compresses or writes one block; the failure, if any.
    private func output(_ bytes: UnsafeRawBufferPointer) -> ArchiveWriterError? {
        guard let compressor else {
            if sink.write(bytes) { return nil }
            return ArchiveWriterError(call: "write", entry: sink.name, message: String(cString: strerror(sink.failure)))
        }
        var offset = 0
        while offset < bytes.count {
            let n = archive_write_data(compressor, bytes.baseAddress! + offset, bytes.count - offset)
            if n <= 0 {
                return ArchiveWriterError(
                    call: "archive_write_data", message: n == 0 ? "wrote nothing" : errorString(compressor))
            }
            offset += n
        }
        return nil
    }

    private func errorString(_ handle: OpaquePointer) -> String {
        if sink.failure != 0 { return "\(sink.name): " + ArchiveWriterError.cause(sink.failure) }
        return archive_error_string(handle).map { String(cString: $0) }
            ?? "unknown libarchive error: " + ArchiveWriterError.cause(archive_errno(handle))
    }

    // MARK: - Compressor

    /// libarchive's raw format (the stream is the data of one entry) with `compression`'s filter.
    private static func openCompressor(_ compression: Compression, level: Int?, sink: Sink) throws(ArchiveWriterError)
        -> (OpaquePointer, Int)
    {
        guard let handle = archive_write_new() else {
            throw ArchiveWriterError(call: "archive_write_new", message: "out of memory")
        }
        func check(_ call: String, _ status: Int32) throws(ArchiveWriterError) {
            if status == ARCHIVE_OK { return }
            let message = archive_error_string(handle).map { String(cString: $0) } ?? "failed"
            archive_write_free(handle)
            throw ArchiveWriterError(call: call, message: message)
        }
        var threads = 1
        try check("archive_write_set_format_raw", archive_write_set_format_raw(handle))
        switch compression {
        case .none:
            break
        case .gzip:
            try check("archive_write_add_filter_gzip", archive_write_add_filter_gzip(handle))
            // No timestamp in the gzip header: the same tree gives the same bytes.
            try check(
                "archive_write_set_filter_option gzip:!timestamp",
                archive_write_set_filter_option(handle, "gzip", "timestamp", nil))
        case .zstd:
            // Single-threaded: this thread is the compressor, beside the reading and formatting thread.
            // libzstd's worker threads were 4-12% slower (through libarchive, `threads=1` or `2`, at 77-91 MiB
            // peak RSS against 31 MiB; or called directly, with 2-4 MiB jobs).
            try check("archive_write_add_filter_zstd", archive_write_add_filter_zstd(handle))
        case .xz:
            try check("archive_write_add_filter_xz", archive_write_add_filter_xz(handle))
            // Older libarchive (or a liblzma without threads) refuses: compress on one core.
            if archive_write_set_filter_option(handle, "xz", "threads", "2") == ARCHIVE_OK { threads = 2 }
        }
        if let level {
            try check(
                "archive_write_set_filter_option compression-level=\(level)",
                archive_write_set_filter_option(handle, nil, "compression-level", String(level)))
        }
        try check("archive_write_set_bytes_per_block", archive_write_set_bytes_per_block(handle, ArchiveWriter.blockSize))
        try check("archive_write_set_bytes_in_last_block", archive_write_set_bytes_in_last_block(handle, 1))
        let context = Unmanaged.passUnretained(sink).toOpaque()
        try check("archive_write_open2", archive_write_open2(handle, context, nil, Sink.callback, nil, nil))
        guard let entry = archive_entry_new() else {
            archive_write_free(handle)
            throw ArchiveWriterError(call: "archive_entry_new", message: "out of memory")
        }
        defer { archive_entry_free(entry) }
        archive_entry_set_filetype(entry, 0o100000)  // AE_IFREG
        archive_entry_set_pathname(entry, "stream")
        try check("archive_write_header", archive_write_header(handle, entry))
        return (handle, threads)
    }

    // MARK: - Types

    /// One block of the uncompressed stream.
    private final class Block {
        let base: UnsafeMutableRawPointer
        let capacity: Int
        var used = 0

        init(capacity: Int) {
            self.capacity = capacity
            base = .allocate(byteCount: capacity, alignment: 64)
        }

        deinit { base.deallocate() }
    }

    /// The end of the chain: writes whole buffers to the descriptor and counts them (stage thread only, and
    /// the compressor's close on the producer's thread after the stage thread stopped).
    private final class Sink {
        let descriptor: Int32
        let name: String
        var bytes: Int64 = 0
        /// errno of the first failed write.
        var failure: Int32 = 0

        init(descriptor: Int32, name: String) {
            self.descriptor = descriptor
            self.name = name
        }

        /// Writes all of `buffer`, retrying after EINTR; false (with `failure` set) when write(2) fails.
        func write(_ buffer: UnsafeRawBufferPointer) -> Bool {
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return false
                }
                offset += n
            }
            bytes += Int64(buffer.count)
            return true
        }

        static let callback: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafeRawPointer?, Int) -> Int = {
            _, context, buffer, length in
            let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
            return sink.write(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : -1
        }
    }
}
