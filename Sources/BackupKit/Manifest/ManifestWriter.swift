// ManifestWriter: collects the manifest's file lines with flat memory and writes the final member.
import Foundation
import Glibc
import SystemKit

/// Builds `.devicectl-manifest.jsonl` while the archive is written. File lines accumulate in memory
/// up to `memoryLimit`, then spill to an unlinked temporary file, so memory stays flat however many
/// files the tree holds. `finish` writes the whole manifest as the archive's last member.
final class ManifestWriter {
    /// Bytes of file lines kept in memory before spilling.
    static let memoryLimit = 256 << 10

    private var buffer: [UInt8] = []
    /// The unlinked spill file, once made.
    private var spill: FileDescriptor?
    private var spilledBytes = 0
    private let spillDirectory: String

    /// `spillDirectory` is where the unlinked spill file is created (the archive's directory, or /tmp).
    init(spillDirectory: String) {
        self.spillDirectory = spillDirectory
        // Room for the limit plus one more line: the buffer never reallocates.
        buffer.reserveCapacity(Self.memoryLimit + 64 * 1024)
    }

    deinit {
        spill = nil  // closed before the buffer is freed
    }

    private static let fileLinePrefix = Array(#"{"kind":"file","path":"#.utf8)
    private static let sizeKey = Array(#","size":"#.utf8)
    private static let shaKey = Array(#","sha256":"#.utf8)

    /// Appends `{"kind":"file","path":...,"size":N,"sha256":hex}`.
    func appendFile(
        path: UnsafeBufferPointer<UInt8>, size: UInt64, sha256: UnsafeRawBufferPointer
    ) throws(SystemError) {
        if buffer.count + path.count * 6 + 160 > buffer.capacity { try spillBuffer() }
        buffer.append(contentsOf: Self.fileLinePrefix)
        JSONText.appendString(path, to: &buffer)
        buffer.append(contentsOf: Self.sizeKey)
        JSONText.appendNumber(size, to: &buffer)
        buffer.append(contentsOf: Self.shaKey)
        JSONText.appendHex(sha256, to: &buffer)
        buffer.append(UInt8(ascii: "}"))
        buffer.append(UInt8(ascii: "\n"))
    }

    private func spillBuffer() throws(SystemError) {
        let location = "manifest spill file in \(spillDirectory)"
        if spill == nil {
            var template = Array("\(spillDirectory)/.devicectl-manifest-XXXXXX".utf8CString)
            let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            if fd < 0 { throw SystemError("mkstemp", path: spillDirectory) }
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }  // anonymous from now on
            spill = FileDescriptor(rawValue: fd, path: location)
        }
        let fd = spill?.rawValue ?? -1
        let failure: Int32? = buffer.withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += n
            }
            return nil
        }
        if let failure { throw SystemError("write", path: location, code: failure) }
        spilledBytes += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes the manifest member to `sink`: header line, the file lines, totals line, and the members line (the
    /// members digest, and the SHA-256 of every manifest byte before it: see `Manifest.Members`); with no `members`
    /// digest, the header line alone (a format that keeps no per-file digests: `HashPlacement.nowhere`).
    /// `created` is also the member's mtime; it is owned by uid/gid 0 with mode 0644.
    func finish(
        header: Manifest.Header, totals: Manifest.Totals, members: Manifest.MemberDigest?, created: Date,
        to sink: some FormatSink
    ) throws {
        let headerLine = try header.jsonLine() + [0x0A]
        guard let members else {
            try begin(size: headerLine.count, created: created, in: sink)
            try headerLine.withUnsafeBytes { try sink.write($0) }
            return
        }
        let totalsLine = totals.jsonLine() + [0x0A]
        // The members line ends with the SHA-256 of the bytes before it, so those are hashed as they are written,
        // and the member's size comes from a members line of the same length (a digest is always 64 hex digits).
        let placeholder = String(repeating: "0", count: 2 * SHA256Digest.length)
        let membersLength = members.line(manifestSha256: placeholder).jsonLine().count + 1
        try begin(
            size: headerLine.count + spilledBytes + buffer.count + totalsLine.count + membersLength, created: created,
            in: sink)
        let manifestDigest = try SHA256Digest()
        headerLine.withUnsafeBytes { manifestDigest.update($0) }
        // The spilled lines are hashed on a thread of their own while this one copies them into the archive (each
        // reads the spill file): copying and hashing them one after the other was the backup's last stretch on one
        // thread, after every other thread had ended.
        let spillHash = spilledBytes > 0 ? try SpillHash(spill: spillRead, into: manifestDigest) : nil
        try headerLine.withUnsafeBytes { try sink.write($0) }
        if spilledBytes > 0 { try spillRead.forEachChunk { try sink.write($0) } }
        try spillHash?.finish()
        let write = { (bytes: UnsafeRawBufferPointer) throws in
            manifestDigest.update(bytes)
            try sink.write(bytes)
        }
        try buffer.withUnsafeBytes(write)
        try totalsLine.withUnsafeBytes(write)
        let membersLine = members.line(manifestSha256: manifestDigest.hex).jsonLine() + [0x0A]
        guard membersLine.count == membersLength else {
            throw BackupError.output("internal error: the manifest's members line changed length")
        }
        try membersLine.withUnsafeBytes { try sink.write($0) }
    }

    /// Starts the manifest member of `size` bytes: mtime `created`, owned by uid/gid 0, mode 0644.
    private func begin(size: Int, created: Date, in sink: some FormatSink) throws {
        let seconds = created.timeIntervalSince1970.rounded(.down)
        let nanoseconds = UInt32(((created.timeIntervalSince1970 - seconds) * 1e9).rounded(.down))
        try Manifest.memberName.withCString { name in
            try sink.begin(
                SinkMember(
                    kind: .file, path: UnsafeBufferPointer(start: name, count: strlen(name)), link: nil,
                    mode: UInt32(S_IFREG) | 0o644, uid: 0, gid: 0, mtimeSeconds: Int64(seconds),
                    mtimeNanoseconds: min(nanoseconds, 999_999_999), size: UInt64(size),
                    attributes: UnsafeRawBufferPointer(start: nil, count: 0)))
        }
    }

    /// The spilled file lines, to read back.
    private var spillRead: SpillRead {
        SpillRead(descriptor: spill?.rawValue ?? -1, count: spilledBytes, location: "manifest spill file in \(spillDirectory)")
    }

    /// The spill file's lines, read back in 1 MiB chunks with `pread` (so two threads may read them at once).
    private struct SpillRead: Sendable {
        let descriptor: Int32
        let count: Int
        let location: String

        func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
            let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
            defer { chunk.deallocate() }
            var offset = 0
            while offset < count {
                let n = Kernel.read(
                    descriptor, into: chunk.baseAddress!, count: min(chunk.count, count - offset), at: UInt64(offset))
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { throw SystemError("pread", path: location) }
                try body(UnsafeRawBufferPointer(rebasing: chunk[0..<n]))
                offset += n
            }
        }
    }

    /// Feeds the spilled lines to a digest on a worker thread, which alone uses the digest until `finish` (or the
    /// value going away, when the copy failed) joins it.
    private final class SpillHash {
        /// What the worker uses: the digest, and what stopped it (read after the join).
        private final class Work: @unchecked Sendable {
            let digest: SHA256Digest
            var failure: Error?
            init(_ digest: SHA256Digest) { self.digest = digest }
        }

        private let work: Work
        private var worker: WorkerThread?

        init(spill: SpillRead, into digest: SHA256Digest) throws {
            let work = Work(digest)
            self.work = work
            do {
                worker = try WorkerThread {
                    do { try spill.forEachChunk { work.digest.update($0) } } catch { work.failure = error }
                }
            } catch { throw BackupError.system(error) }
        }

        deinit { worker.take()?.join() }

        /// Waits for the worker; throws what stopped it.
        func finish() throws {
            worker.take()?.join()
            if let failure = work.failure { throw failure }
        }
    }
}
