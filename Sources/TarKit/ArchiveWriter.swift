// ArchiveWriter: devicectl's pax writer over a file descriptor, with optional gzip/zstd/xz.
import Glibc
import SystemKit

/// Writes a POSIX pax tar stream: plain ustar headers, plus a pax extended header only where one is needed
/// (nanosecond mtimes, long or non-ASCII names, `user.*` xattrs as `SCHILY.xattr.*`, GNU sparse 1.0 members; see
/// `PaxHeader`), which GNU tar and bsdtar both read without warnings. The stream goes unbuffered to a
/// `StreamCompressor`, which writes it at once (a plain tar) or compresses and writes it on a thread of its own.
/// The headers are formatted here, not by libarchive's pax writer: a plain backup never loads libarchive (2.3-3.1 ms
/// of `dlopen` with its dependencies, measured; a backup of an empty device took 15-17 ms in all), and a header costs
/// less than libarchive's (its pax writer was 14% of the formatting thread's samples).
/// The descriptor is borrowed: the caller closes (and fsyncs) it after `close()`.
public final class ArchiveWriter {
    private let compressor: StreamCompressor
    private var open = true
    /// Worker threads the compressor uses (xz: 2 when this libarchive accepts `threads=2`; else 1).
    public var compressionThreads: Int { compressor.compressionThreads }
    /// zstd frames the writing thread compressed itself because the compressing thread was behind (read it after
    /// `close()`).
    public var framesCompressedAhead: Int { compressor.framesCompressedAhead }
    /// zstd blocks filled with streaming stores (`HandOffCopyPolicy`); final after `close`.
    public var blocksStreamed: Int { compressor.blocksStreamed }

    /// Output block size: 25 tar records of 10240 bytes, so the stream (padded to 10240 at the end when
    /// uncompressed, as GNU tar pads) goes out in 250 KiB writes.
    static let blockSize: Int32 = 10_240 * 25

    /// The header being built and its builder (reused).
    private var scratch: [UInt8] = []
    private var header = PaxHeader()
    /// Stored bytes of the current member still expected (its sparse map already written), and its padding.
    private var remaining: UInt64 = 0
    private var padding = 0
    /// The current member (the sink's one reused entry: unchanged until the next header), named in messages.
    private var currentEntry: ArchiveEntry?
    private var current: String { currentEntry.map { String(decoding: $0.path, as: UTF8.self) } ?? "" }
    /// A sparse member's regions, the next one to fill and the logical offset of the next byte written.
    private var regions: [DataRegionMap.Region] = []
    private var regionIndex = 0
    private var logical: UInt64 = 0
    private var sparse = false
    /// Zeros for padding and for data a member did not get.
    private let zeros: UnsafeMutableRawBufferPointer

    /// Starts an archive on `descriptor`.
    /// - Parameters:
    ///   - compression: the filter; `level` must be in `compression.levels` when given.
    ///   - name: names the output in error messages.
    ///   - copies: how a zstd stream's blocks are filled (`HandOffCopyPolicy`; tests pin it).
    public init(
        descriptor: Int32, compression: Compression, level: Int? = nil, name: String,
        copies: HandOffCopyPolicy = .measured
    ) throws(ArchiveWriterError) {
        compressor = try StreamCompressor(
            descriptor: descriptor, compression: compression, level: level, name: name, copies: copies)
        zeros = .allocate(byteCount: 10_240, alignment: 16)
        zeros.initializeMemory(as: UInt8.self, repeating: 0)
        scratch.reserveCapacity(4096)
    }

    deinit {
        if open { compressor.cancel() }
        zeros.deallocate()
    }

    /// Writes a member's header (and its pax extended header when needed), after ending the previous member.
    public func writeHeader(_ entry: ArchiveEntry) throws(ArchiveWriterError) {
        try endMember()
        currentEntry = entry
        scratch.removeAll(keepingCapacity: true)
        let (stored, map) = header.append(entry, to: &scratch)
        try emit(scratch)
        remaining = stored
        padding = Int((UInt64(PaxHeader.block) - stored % UInt64(PaxHeader.block)) % UInt64(PaxHeader.block))
        sparse = map != nil
        regions = entry.regions ?? []
        regionIndex = 0
        logical = 0
        if let map {
            try emit(map)
            remaining -= UInt64(map.count)
        }
    }

    /// Writes member data; the total must not exceed the size in the header (a sparse member takes its whole
    /// logical content, of which only the bytes inside its regions are stored).
    public func writeData(_ buffer: UnsafeRawBufferPointer) throws(ArchiveWriterError) {
        guard sparse else {
            guard UInt64(buffer.count) <= remaining else { throw tooMuch() }
            remaining -= UInt64(buffer.count)
            return try emit(buffer)
        }
        var offset = 0
        while offset < buffer.count {
            guard regionIndex < regions.count else { break }  // after the last region: holes only
            let region = regions[regionIndex]
            let position = logical + UInt64(offset)
            if position >= region.offset + region.length {
                regionIndex += 1
                continue
            }
            if position < region.offset {
                offset += Int(min(region.offset - position, UInt64(buffer.count - offset)))
                continue
            }
            let take = Int(min(region.offset + region.length - position, UInt64(buffer.count - offset)))
            guard UInt64(take) <= remaining else { throw tooMuch() }
            try emit(UnsafeRawBufferPointer(rebasing: buffer[offset..<(offset + take)]))
            remaining -= UInt64(take)
            offset += take
        }
        logical += UInt64(buffer.count)
    }

    /// Writes the end-of-archive blocks, then waits for the compressor stage to compress and write everything.
    /// The descriptor stays open.
    public func close() throws(ArchiveWriterError) {
        guard open else { return }
        do {
            try endMember()
            try emitZeros(2 * PaxHeader.block)
        } catch {
            open = false
            compressor.cancel()
            throw error
        }
        open = false
        try compressor.finish()
    }

    /// Bytes written to the descriptor (after compression, padding included); final after `close()`.
    public var bytesWritten: Int64 { compressor.bytesWritten }

    // MARK: - Stream

    /// Ends the current member: data it did not get is written as zeros (as libarchive's writer did), then its
    /// padding to a whole block.
    private func endMember() throws(ArchiveWriterError) {
        while remaining > 0 {
            let count = Int(min(remaining, UInt64(zeros.count)))
            try emitZeros(count)
            remaining -= UInt64(count)
        }
        if padding > 0 {
            let count = padding
            padding = 0
            try emitZeros(count)
        }
    }

    private func emitZeros(_ count: Int) throws(ArchiveWriterError) {
        try emit(UnsafeRawBufferPointer(rebasing: zeros[0..<count]))
    }

    private func emit(_ bytes: [UInt8]) throws(ArchiveWriterError) {
        let sent = bytes.withUnsafeBytes { compressor.append($0) }
        if !sent { throw stopped() }
    }

    private func emit(_ bytes: UnsafeRawBufferPointer) throws(ArchiveWriterError) {
        guard compressor.append(bytes) else { throw stopped() }
    }

    private func stopped() -> ArchiveWriterError {
        ArchiveWriterError(call: "write", entry: current, message: compressor.error?.message ?? "the output stage stopped")
    }

    private func tooMuch() -> ArchiveWriterError {
        ArchiveWriterError(call: "writeData", entry: current, message: "more data than the member's size")
    }
}
