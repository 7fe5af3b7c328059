// ArchiveWriter: libarchive's pax writer over a file descriptor, with optional gzip/zstd/xz.
import CArchive
import Glibc

/// Writes a POSIX pax tar stream (libarchive's pax interchange writer: plain ustar headers, plus a pax
/// extended header only where one is needed: nanosecond mtimes, long or non-ASCII names, `user.*` xattrs
/// as `SCHILY.xattr.*`, which GNU tar and bsdtar both read without warnings). The stream goes unbuffered to an
/// `StreamCompressor`, which compresses and writes it on a thread of its own.
/// The descriptor is borrowed: the caller closes (and fsyncs) it after `close()`.
public final class ArchiveWriter {
    private let archive: OpaquePointer
    private let compressor: StreamCompressor
    private var open = true
    /// Non-fatal notes: headers libarchive wrote with a warning.
    public private(set) var notes: [String] = []
    /// Worker threads the compressor uses (xz: 2 when this libarchive accepts `threads=2`; else 1).
    public var compressionThreads: Int { compressor.compressionThreads }

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
        do {
            compressor = try StreamCompressor(
                descriptor: descriptor, compression: compression, level: level, name: name)
        } catch {
            archive_write_free(archive)
            throw error
        }
        do {
            try check("archive_write_set_format_pax", archive_write_set_format_pax(archive))
            // SCHILY.xattr only: GNU tar does not know LIBARCHIVE.xattr and would warn.
            try check("archive_write_set_format_option xattrheader",
                      archive_write_set_format_option(archive, "pax", "xattrheader", "SCHILY"))
            // Unbuffered: every header and data write goes straight to `StreamCompressor`, which blocks the stream.
            try check("archive_write_set_bytes_per_block", archive_write_set_bytes_per_block(archive, 0))
            let context = Unmanaged.passUnretained(compressor).toOpaque()
            try check(
                "archive_write_open2", archive_write_open2(archive, context, nil, ArchiveWriter.forward, nil, nil),
                entry: name)
        } catch {
            archive_write_free(archive)
            compressor.cancel()
            open = false
            throw error
        }
    }

    deinit {
        if open {
            archive_write_fail(archive)
            compressor.cancel()
        }
        archive_write_free(archive)
    }

    /// libarchive's write callback: hands the bytes to the compressor stage. The writer keeps `compressor` alive, so
    /// the callback borrows it without a retain and release: an atomic pair per call on an object the
    /// compressor's thread also uses was 3.5% of a zstd backup's samples.
    private static let forward: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafeRawPointer?, Int) -> Int =
        { _, context, buffer, length in
            Unmanaged<StreamCompressor>.fromOpaque(context!)._withUnsafeGuaranteedRef {
                $0.append(UnsafeRawBufferPointer(start: buffer, count: length)) ? length : -1
            }
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

    /// Writes the end-of-archive blocks, then waits for the compressor stage to compress and write everything.
    /// The descriptor stays open.
    public func close() throws(ArchiveWriterError) {
        guard open else { return }
        open = false
        if archive_write_close(archive) != ARCHIVE_OK {
            let error = ArchiveWriterError(call: "archive_write_close", message: errorString)
            compressor.cancel()
            throw error
        }
        try compressor.finish()
    }

    /// Bytes written to the descriptor (after compression, padding included); final after `close()`.
    public var bytesWritten: Int64 { compressor.bytesWritten }

    private var errorString: String {
        if let failure = compressor.error { return failure.description }
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
}
