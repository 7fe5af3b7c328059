// ZstdStream: zstd compression of the tar stream through libzstd itself, with a small job size.
import CZstd

/// Compresses one stream into one zstd frame (with a content checksum) using libzstd's streaming API.
///
/// The archive writer uses it instead of libarchive's zstd filter, which cannot set a job size: with
/// worker threads libzstd then cuts the input into 8 MiB jobs and holds several at once (about 60 MiB of
/// peak RSS). Here the job size is set (`jobSize`), so memory stays a few MiB whatever the archive's size.
/// The output depends only on the level, the worker count and the job size, never on thread timing.
final class ZstdStream {
    private let context: OpaquePointer
    private let output: UnsafeMutableRawBufferPointer
    /// Worker threads compressing (0: compression runs on the caller's thread).
    let workers: Int

    /// - Parameters:
    ///   - level: the compression level (libzstd's default, 3, when nil).
    ///   - workers: worker threads; fewer when libzstd was built without threads.
    ///   - jobSize: bytes per job when `workers > 0` (libzstd's minimum is 512 KiB).
    init(level: Int?, workers: Int, jobSize: Int) throws(ArchiveWriterError) {
        guard let context = ZSTD_createCCtx() else {
            throw ArchiveWriterError(call: "ZSTD_createCCtx", message: "out of memory")
        }
        self.context = context
        output = .allocate(byteCount: ZSTD_CStreamOutSize(), alignment: 16)
        do {
            try Self.check("ZSTD_c_compressionLevel", ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, Int32(level ?? 3)))
            try Self.check("ZSTD_c_checksumFlag", ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1))
        } catch {
            ZSTD_freeCCtx(context)
            output.deallocate()
            throw error
        }
        // A libzstd built without threads refuses workers: compress on this thread then.
        if workers > 0, ZSTD_isError(ZSTD_CCtx_setParameter(context, ZSTD_c_nbWorkers, Int32(workers))) == 0 {
            _ = ZSTD_CCtx_setParameter(context, ZSTD_c_jobSize, Int32(jobSize))
            self.workers = workers
        } else {
            self.workers = 0
        }
    }

    deinit {
        ZSTD_freeCCtx(context)
        output.deallocate()
    }

    /// Compresses `input`; `emit` receives each full output buffer and returns false to stop (then this
    /// returns at once: the caller reports its own failure).
    func compress(_ input: UnsafeRawBufferPointer, emit: (UnsafeRawBufferPointer) -> Bool) throws(ArchiveWriterError) {
        var source = ZSTD_inBuffer(src: input.baseAddress, size: input.count, pos: 0)
        while source.pos < source.size {
            var target = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
            try Self.check("ZSTD_compressStream2", ZSTD_compressStream2(context, &target, &source, ZSTD_e_continue))
            if target.pos > 0 && !emit(UnsafeRawBufferPointer(start: output.baseAddress, count: target.pos)) { return }
        }
    }

    /// Ends the frame: compresses what is still buffered and emits the rest of the output.
    func finish(emit: (UnsafeRawBufferPointer) -> Bool) throws(ArchiveWriterError) {
        var source = ZSTD_inBuffer(src: nil, size: 0, pos: 0)
        var remaining = 1
        while remaining != 0 {
            var target = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: 0)
            remaining = try Self.check("ZSTD_compressStream2(end)", ZSTD_compressStream2(context, &target, &source, ZSTD_e_end))
            if target.pos > 0 && !emit(UnsafeRawBufferPointer(start: output.baseAddress, count: target.pos)) { return }
        }
    }

    @discardableResult
    private static func check(_ call: String, _ result: Int) throws(ArchiveWriterError) -> Int {
        guard ZSTD_isError(result) != 0 else { return result }
        throw ArchiveWriterError(call: call, message: String(cString: ZSTD_getErrorName(result)))
    }
}
