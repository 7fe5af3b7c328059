// ArchiveWriter: libarchive's pax writer over a file descriptor, with optional gzip/zstd/xz.
import CArchive
import Glibc

/// Writes a POSIX pax tar stream (libarchive's pax interchange writer: plain ustar headers, plus a pax
/// extended header only where one is needed: nanosecond mtimes, long or non-ASCII names, `user.*` xattrs
/// as `SCHILY.xattr.*`, which GNU tar and bsdtar both read without warnings).
/// The descriptor is borrowed: the caller closes (and fsyncs) it after `close()`.
public final class ArchiveWriter {
    private let archive: OpaquePointer
    private let sink: Sink
    private var open = true
    /// Non-fatal notes: headers libarchive wrote with a warning.
    public private(set) var notes: [String] = []
    /// Worker threads the compressor uses (xz: 2 when this libarchive accepts `threads=2`; else 1).
    public private(set) var compressionThreads = 1

    /// Output block size: 25 tar records of 10240 bytes, so the stream (padded to 10240 at the end when
    /// uncompressed, as GNU tar pads) goes out in 250 KiB writes.
    static let blockSize: Int32 = 10_240 * 25

    /// Starts an archive on `descriptor`.
    /// - Parameters:
    ///   - compression: the filter; `level` must be in `compression.levels` when given.
    ///   - name: names the output in error messages.
    public init(descriptor: Int32, compression: Compression, level: Int? = nil, name: String) throws(ArchiveWriterError) {
        ArchiveWriter.useUTF8Names()
        guard let archive = archive_write_new() else {
            throw ArchiveWriterError(call: "archive_write_new", message: "out of memory")
        }
        self.archive = archive
        sink = Sink(descriptor: descriptor, name: name)
        do {
            try check("archive_write_set_format_pax", archive_write_set_format_pax(archive))
            // SCHILY.xattr only: GNU tar does not know LIBARCHIVE.xattr and would warn.
            try check("archive_write_set_format_option xattrheader",
                      archive_write_set_format_option(archive, "pax", "xattrheader", "SCHILY"))
            try configure(compression, level: level)
            try check("archive_write_set_bytes_per_block", archive_write_set_bytes_per_block(archive, Self.blockSize))
            try check("archive_write_set_bytes_in_last_block",
                      archive_write_set_bytes_in_last_block(archive, compression == .none ? 10_240 : 1))
            let context = Unmanaged.passUnretained(sink).toOpaque()
            try check("archive_write_open2", archive_write_open2(archive, context, nil, Sink.write, nil, nil), entry: name)
        } catch {
            archive_write_free(archive)
            open = false
            throw error
        }
    }

    deinit {
        if open { archive_write_fail(archive) }
        archive_write_free(archive)
    }

    private func configure(_ compression: Compression, level: Int?) throws(ArchiveWriterError) {
        switch compression {
        case .none:
            return
        case .gzip:
            try check("archive_write_add_filter_gzip", archive_write_add_filter_gzip(archive))
            // No timestamp in the gzip header: the same tree gives the same bytes.
            try check("archive_write_set_filter_option gzip:!timestamp",
                      archive_write_set_filter_option(archive, "gzip", "timestamp", nil))
        case .zstd:
            // On the writing thread, while the reading thread reads and hashes: both cores busy. libarchive's
            // threaded zstd (threads=2) cuts 8 MiB jobs and held ~60 MiB more (88 MiB peak RSS at 40k files,
            // against 31 MiB), and on a loaded machine it was no faster than this.
            try check("archive_write_add_filter_zstd", archive_write_add_filter_zstd(archive))
        case .xz:
            try check("archive_write_add_filter_xz", archive_write_add_filter_xz(archive))
            threads(filter: "xz")
        }
        if let level {
            try check("archive_write_set_filter_option compression-level=\(level)",
                      archive_write_set_filter_option(archive, nil, "compression-level", String(level)))
        }
    }

    /// Compresses on both cores when this libarchive and the codec library accept a thread count.
    private func threads(filter: String) {
        // Older libarchive (or a codec library built without threads) refuses: compress on one core.
        if archive_write_set_filter_option(archive, filter, "threads", "2") == ARCHIVE_OK { compressionThreads = 2 }
    }

    /// Writes a member's header (and its pax extended header when needed).
    public func writeHeader(_ entry: ArchiveEntry) throws(ArchiveWriterError) {
        let status = archive_write_header(archive, entry.raw)
        if status == ARCHIVE_OK { return }
        let name = String(cString: archive_entry_pathname(entry.raw))
        if status == ARCHIVE_WARN {
            notes.append("\(name): \(errorString)")
            return
        }
        throw ArchiveWriterError(call: "archive_write_header", entry: name, message: errorString)
    }

    /// Writes member data; the total must equal the size in the header.
    public func writeData(_ buffer: UnsafeRawBufferPointer) throws(ArchiveWriterError) {
        var offset = 0
        while offset < buffer.count {
            let n = archive_write_data(archive, buffer.baseAddress! + offset, buffer.count - offset)
            if n <= 0 {
                throw ArchiveWriterError(call: "archive_write_data", message: n == 0 ? "wrote nothing" : errorString)
            }
            offset += n
        }
    }

    /// Writes the end-of-archive blocks and flushes every filter. The descriptor stays open.
    public func close() throws(ArchiveWriterError) {
        guard open else { return }
        open = false
        try check("archive_write_close", archive_write_close(archive))
    }

    /// Bytes written to the descriptor so far (after compression, padding included).
    public var bytesWritten: Int64 { sink.bytes }

    private var errorString: String {
        if sink.failure != 0 { return "write(\(sink.name)): \(String(cString: strerror(sink.failure)))" }
        return archive_error_string(archive).map { String(cString: $0) }
            ?? "unknown libarchive error (errno \(archive_errno(archive)))"
    }

    private func check(_ call: String, _ status: Int32, entry: String = "") throws(ArchiveWriterError) {
        if status == ARCHIVE_OK { return }
        throw ArchiveWriterError(call: call, entry: entry, message: errorString)
    }

    /// libarchive converts names from the locale's charset to UTF-8 for pax headers; in the C locale
    /// every non-ASCII name would fail to convert. Switch LC_CTYPE to C.UTF-8 unless it is UTF-8 already.
    static func useUTF8Names() {
        if let codeset = nl_langinfo(nl_item(CODESET)), String(cString: codeset) == "UTF-8" { return }
        _ = setlocale(LC_CTYPE, "C.UTF-8")
    }

    /// The end of the filter chain: writes whole buffers to the descriptor and counts them.
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

        static let write: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafeRawPointer?, Int) -> Int = {
            _, context, buffer, length in
            let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
            var offset = 0
            while offset < length {
                let n = Glibc.write(sink.descriptor, buffer! + offset, length - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    sink.failure = errno
                    return -1
                }
                offset += n
            }
            sink.bytes += Int64(length)
            return length
        }
    }
}
