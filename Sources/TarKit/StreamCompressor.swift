// StreamCompressor: the archive writer's last stage: compresses (on a thread of its own) and writes the tar stream.
//
// The pax formatter hands the uncompressed stream over in blocks. With compression, a thread compresses them and
// writes the result: reading and formatting on one core (one thread: see `BackupEngine.formatsInline`), compressing
// and write(2) on the other, so a backup keeps both cores busy even when the compressor is its heaviest part.
// zstd: each 2 MiB block becomes a frame of its own (`ZstdFrameEncoder`), so either thread can compress one: when
// the compressing thread is behind (every block queued: a high level), the producer compresses the block it just
// filled instead of waiting and queues the frame, which the compressing thread writes in its turn. The producer fills
// each block with plain stores, or with streaming stores while a reading of the blocks coming back says the
// compressing thread's cache is far from its own (`HandOffCopyPolicy`). (libzstd's own
// worker threads were 4-12% slower than one thread: through libarchive's filter, `threads=1` or `2`, at 77-91 MiB
// peak RSS against 31 MiB, or called directly with 2-4 MiB jobs.) gzip and xz: 250 KiB blocks go to a second
// libarchive handle (the raw format and the compression filter: the same code, so the same bytes, as one handle
// with a filter). A plain tar's blocks are written at once, on the formatting thread: measured, a third thread
// there cost 3-6% in hand-offs and bought nothing (the reading and formatting threads already fill both cores).
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
    /// The uncompressed bytes in each zstd frame: level 3 output within 0.1% of one frame for the whole stream
    /// (a frame's window is at most its content), 2 MiB blocks in flight, three of them queued (`zstdDepth`).
    static let zstdFrameSize = 2 << 20
    static let zstdDepth = 3
    /// A zstd frame wakes the sleeping compressor at once: one frame is milliseconds of work, and waiting for a
    /// second (4 MiB) left that thread idle at the start and each time it caught up (like-for-like zstd backup 0.97x,
    /// 0.95x with one core busy, against waking after two; alternating rounds).
    static let zstdWakeAfter = 1

    /// Worker threads the compressor uses (xz: 2 when this libarchive accepts `threads=2`; else 1).
    let compressionThreads: Int
    /// The compression level asked for (nil: the compressor's default).
    private let level: Int?
    private let sink: Sink
    /// libarchive's raw format with the compression filter (gzip, xz); nil for a plain tar, whose blocks are
    /// written at once, on the producer's thread (there is no stage thread then), and for zstd.
    private let compressor: OpaquePointer?
    /// zstd: the compressing thread's encoder and the buffer its frames go to before they are written.
    private let frames: (encoder: ZstdFrameEncoder, output: UnsafeMutableRawBufferPointer)?
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
    /// zstd: the producer's own encoder, made the first time it compresses a block (producer side only).
    private var producerEncoder: ZstdFrameEncoder?
    /// zstd frames the producer compressed because the compressing thread was behind (producer side only).
    private(set) var framesCompressedAhead = 0
    /// zstd: plain or streaming stores into the block being filled (`HandOffCopyPolicy`; producer side only).
    private var copies: HandOffCopyPolicy
    /// Blocks filled with streaming stores (producer side only).
    var blocksStreamed: Int { copies.buffersStreamed }

    /// Starts the stage on `descriptor` (borrowed). `copies`: how a zstd block is filled (other streams: plain
    /// stores). Throws when the compressor cannot be set up.
    init(descriptor: Int32, compression: Compression, level: Int?, name: String, copies: HandOffCopyPolicy)
        throws(ArchiveWriterError)
    {
        sink = Sink(descriptor: descriptor, name: name)
        self.level = level
        self.copies = compression == .zstd ? copies : HandOffCopyPolicy(.regular)
        let blockSize = compression == .zstd ? StreamCompressor.zstdFrameSize : Int(ArchiveWriter.blockSize)
        current = Block(capacity: blockSize)
        switch compression {
        case .none:
            compressor = nil
            frames = nil
            handOff = nil
            compressionThreads = 1
            return
        case .zstd:
            compressor = nil
            let encoder = try ZstdFrameEncoder(level: level)
            frames = (encoder, .allocate(byteCount: ZstdFrameEncoder.bound(blockSize), alignment: 64))
            compressionThreads = 1
        case .gzip, .xz:
            let (compressor, threads) = try StreamCompressor.openCompressor(compression, level: level, sink: sink)
            self.compressor = compressor
            frames = nil
            compressionThreads = threads
        }
        let (depth, wakeAfter) =
            compression == .zstd
            ? (StreamCompressor.zstdDepth, StreamCompressor.zstdWakeAfter)
            : (StreamCompressor.depth, StreamCompressor.wakeAfter)
        let handOff = HandOff<Block, ArchiveWriterError>(
            items: (0..<depth).map { _ in Block(capacity: blockSize) }, wakeAfter: wakeAfter)
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
        frames?.output.deallocate()
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
            copies.copy(UnsafeRawBufferPointer(rebasing: bytes[done..<(done + count)]), to: current.base + current.used)
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
        guard let handOff else {
            let padding = (10_240 - streamBytes % 10_240) % 10_240
            let zeros = [UInt8](repeating: 0, count: padding)
            _ = zeros.withUnsafeBytes { append($0) }
            if current.used > 0 { _ = submit() }
            if let plainFailure { throw plainFailure }
            return
        }
        // A zstd stream of no bytes is still one (empty) frame.
        if current.used > 0 || (frames != nil && streamBytes == 0) {
            copies.publish()
            handOff.submit(current)
        }
        if frames != nil { compressQueuedFrames(handOff) }
        handOff.close()
        worker.take()?.join()
        if let failure = handOff.failure { throw failure }
        if let frames {
            try frames.encoder.close()
            try producerEncoder.take()?.close()
            return
        }
        guard let compressor else { return }
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
        copies.publish()
        if frames != nil, !handOff.hasSpare, let problem = compressAhead(current) {
            handOff.fail(problem)
            return false
        }
        current.handedOver = true
        guard handOff.submit(current), let spare = handOff.takeSpare() else { return false }
        current = spare
        current.used = 0
        current.frameLength = nil
        // A block that went round once was read last by whichever thread compressed it: how far its lines are says
        // how the next block is best filled.
        if spare.handedOver { copies.measure(UnsafeRawBufferPointer(start: spare.base, count: spare.capacity)) }
        return true
    }

    /// zstd, once the stream ends: the producer has nothing left to fill, so it compresses the queued blocks from the
    /// newest back while the compressing thread works through them from the oldest, instead of waiting for it to
    /// compress them all alone (up to `zstdDepth` frames: the last 15 ms of a backup of the bench tree had one thread
    /// busy).
    private func compressQueuedFrames(_ handOff: HandOff<Block, ArchiveWriterError>) {
        while let taken = handOff.takeBack(fromNewestWhere: { $0.frameLength == nil }) {
            if let problem = compressAhead(taken[0]) {
                handOff.putBack(taken)
                handOff.fail(problem)
                return
            }
            handOff.putBack(taken)
        }
    }

    /// Compresses `block` into its own frame buffer on the producer's thread (the compressing thread then only
    /// writes it); the failure, if any.
    private func compressAhead(_ block: Block) -> ArchiveWriterError? {
        do {
            if producerEncoder == nil { producerEncoder = try ZstdFrameEncoder(level: level) }
            guard let encoder = producerEncoder else { return nil }
            let output = block.frameBuffer()
            block.frameLength = try encoder.frame(UnsafeRawBufferPointer(start: block.base, count: block.used), into: output)
            framesCompressedAhead += 1
            return nil
        } catch {
            return error
        }
    }

    // MARK: - Thread

    private func run() {
        guard let handOff else { return }
        while let block = handOff.next() {
            let problem: ArchiveWriterError?
            if let length = block.frameLength, let frame = block.frame {
                problem = write(UnsafeRawBufferPointer(rebasing: frame[..<length]))
            } else {
                problem = output(UnsafeRawBufferPointer(start: block.base, count: block.used))
            }
            handOff.recycle(block)
            if let problem {
                handOff.fail(problem)
                return
            }
        }
    }

    /// Compresses or writes one block; the failure, if any.
    private func output(_ bytes: UnsafeRawBufferPointer) -> ArchiveWriterError? {
        if let frames {
            do {
                let length = try frames.encoder.frame(bytes, into: frames.output)
                return write(UnsafeRawBufferPointer(rebasing: frames.output[..<length]))
            } catch {
                return error
            }
        }
        guard let compressor else {
            return write(bytes)
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

    /// Writes `bytes` to the descriptor; the failure, if any.
    private func write(_ bytes: UnsafeRawBufferPointer) -> ArchiveWriterError? {
        if sink.write(bytes) { return nil }
        return ArchiveWriterError(call: "write", entry: sink.name, message: String(cString: strerror(sink.failure)))
    }

    private func errorString(_ handle: OpaquePointer) -> String {
        if sink.failure != 0 { return "\(sink.name): " + SystemError.phrase(sink.failure) }
        return archive_error_string(handle).map { String(cString: $0) }
            ?? "unknown libarchive error: " + SystemError.phrase(archive_errno(handle))
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
        case .none, .zstd:
            // A plain tar has no compressor; zstd makes its own frames (`ZstdFrameEncoder`).
            archive_write_free(handle)
            throw ArchiveWriterError(call: "archive_write_add_filter", message: "\(compression) has no libarchive filter here")
        case .gzip:
            try check("archive_write_add_filter_gzip", archive_write_add_filter_gzip(handle))
            // No timestamp in the gzip header: the same tree gives the same bytes.
            try check(
                "archive_write_set_filter_option gzip:!timestamp",
                archive_write_set_filter_option(handle, "gzip", "timestamp", nil))
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

    /// One block of the uncompressed stream, and (zstd) the frame the producer compressed it into.
    private final class Block {
        let base: UnsafeMutableRawPointer
        let capacity: Int
        var used = 0
        /// Whether the block was handed to the compressing thread before (its lines were read since).
        var handedOver = false
        /// The frame buffer, made the first time the producer compresses this block.
        private(set) var frame: UnsafeMutableRawBufferPointer?
        /// The length of the frame in `frame` when the producer compressed the block; nil otherwise.
        var frameLength: Int?

        init(capacity: Int) {
            self.capacity = capacity
            base = .allocate(byteCount: capacity, alignment: 64)
        }

        deinit {
            base.deallocate()
            frame?.deallocate()
        }

        /// The frame buffer (room for a whole block's worst case).
        func frameBuffer() -> UnsafeMutableRawBufferPointer {
            if let frame { return frame }
            let made = UnsafeMutableRawBufferPointer.allocate(byteCount: ZstdFrameEncoder.bound(capacity), alignment: 64)
            frame = made
            return made
        }
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
