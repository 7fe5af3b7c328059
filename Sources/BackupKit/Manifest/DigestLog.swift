// DigestLog: (path, size, SHA-256) of every file member read so far, kept in order for the manifest check.
//
// The manifest is the archive's last member, so what was read must be remembered until it arrives. Records
// stay in memory up to 256 KiB, then spill to an unnamed O_TMPFILE file, so memory stays flat for any archive.
import Glibc
import SystemKit

/// An append-only log of file digests, read back once in order.
final class DigestLog {
    /// One logged file.
    struct Record: Equatable {
        let path: [UInt8]
        let size: UInt64
        let digest: [UInt8]
    }

    private static let memoryLimit = 256 << 10
    private var buffer = Records()
    /// Where a spill file is created (an O_TMPFILE directory), or nil for $TMPDIR or /tmp.
    private let spillDirectory: SharedDescriptor?
    private var spill: FileDescriptor?
    private(set) var count: UInt64 = 0

    init(spillDirectory: SharedDescriptor? = nil) {
        self.spillDirectory = spillDirectory
    }

    /// Appends a record (`Records.append`).
    func append(path: [UInt8], size: UInt64, digest: UnsafeRawBufferPointer) throws {
        buffer.append(path: path, size: size, digest: digest)
        count += 1
        if buffer.bytes.count >= DigestLog.memoryLimit { try flush() }
    }

    /// Appends `records` in their order.
    func append(_ records: Records) throws {
        buffer.append(contentsOf: records)
        count += UInt64(records.count)
        if buffer.bytes.count >= DigestLog.memoryLimit { try flush() }
    }

    private func flush() throws {
        if spill == nil {
            let directory = spillDirectory?.rawValue ?? AT_FDCWD
            let path = spillDirectory == nil ? (getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp") : "."
            let fd = try SystemError.check("open(O_TMPFILE)", path: path) {
                openat(directory, path, Kernel.temporaryFile | O_RDWR | O_CLOEXEC, 0o600)
            }
            spill = FileDescriptor(rawValue: fd, path: path)
        }
        try spill?.write(buffer.bytes)
        buffer.removeAll()
    }

    /// A reader over every record in order (the log must not be appended to afterwards).
    func reader() throws -> Reader {
        guard spill != nil else { return Reader(memory: buffer.bytes) }
        try flush()
        try SystemError.check("lseek", path: spill?.path ?? "") { lseek(spill?.rawValue ?? -1, 0, SEEK_SET) }
        return Reader(spillOf: self)
    }

    /// Gives up the records and the spill file once they were read (the manifest check is done): a spill file's pages
    /// are freed here, not when the restore's objects go at its end (about a millisecond for the bench archive's
    /// 28,000 files). Nothing may be appended or read afterwards.
    func release() throws {
        buffer = Records()
        try spill.take()?.close()
    }

    /// Reads records in order, with two records of lookahead.
    final class Reader {
        private var data: [UInt8]
        private var position = 0
        /// The log whose spill file is read (it owns the descriptor); nil when the records are in memory.
        private let log: DigestLog?
        private var endOfFile: Bool
        private var lookahead: [Record] = []

        init(memory: [UInt8]) {
            data = memory
            log = nil
            endOfFile = true
        }

        init(spillOf log: DigestLog) {
            data = []
            self.log = log
            endOfFile = false
        }

        /// The record `offset` ahead (0 = the next one), or nil past the end.
        func peek(_ offset: Int = 0) throws -> Record? {
            while lookahead.count <= offset {
                guard let record = try decode() else { return nil }
                lookahead.append(record)
            }
            return lookahead[offset]
        }

        /// Consumes the next record.
        func advance() throws {
            if lookahead.isEmpty { _ = try peek() }
            if !lookahead.isEmpty { lookahead.removeFirst() }
        }

        /// Consumes the next record when it is exactly `path`, `size` and `digest`, without building it (the
        /// manifest check's common case); consumes nothing and returns false otherwise.
        func advance(
            ifExactly path: UnsafeBufferPointer<UInt8>, size: UInt64, digest: UnsafeBufferPointer<UInt8>
        ) throws -> Bool {
            guard lookahead.isEmpty, let pathStart = path.baseAddress, path.count <= Int(UInt16.max),
                let digestStart = digest.baseAddress, digest.count == 32
            else { return false }
            let length = 2 + path.count + 40
            try fill(length)
            guard data.count - position >= length else { return false }
            let same = data.withUnsafeBufferPointer { bytes in
                let record = bytes.baseAddress! + position
                guard Int(record[0]) | Int(record[1]) << 8 == path.count else { return false }
                var stored: UInt64 = 0
                for shift in 0..<8 { stored |= UInt64(record[2 + path.count + shift]) << (8 * shift) }
                return stored == size && memcmp(record + 2, pathStart, path.count) == 0
                    && memcmp(record + 10 + path.count, digestStart, 32) == 0
            }
            if same { position += length }
            return same
        }

        private func decode() throws -> Record? {
            try fill(2)
            guard data.count - position >= 2 else { return nil }
            let length = Int(data[position]) | Int(data[position + 1]) << 8
            try fill(2 + length + 40)
            guard data.count - position >= 2 + length + 40 else { return nil }
            var index = position + 2
            let path = Array(data[index..<(index + length)])
            index += length
            var size: UInt64 = 0
            for shift in 0..<8 { size |= UInt64(data[index + shift]) << (8 * shift) }
            index += 8
            let digest = Array(data[index..<(index + 32)])
            position = index + 32
            return Record(path: path, size: size, digest: digest)
        }

        /// Makes sure `needed` bytes are buffered from `position`, if the file has them.
        private func fill(_ needed: Int) throws {
            guard let log, !endOfFile, data.count - position < needed else { return }
            data.removeFirst(position)
            position = 0
            var chunk = [UInt8](repeating: 0, count: 256 * 1024)
            while data.count < needed {
                let n = try chunk.withUnsafeMutableBytes { buffer in
                    Result { () throws(SystemError) -> Int in try log.spill?.read(into: buffer) ?? 0 }
                }.get()
                if n == 0 {
                    endOfFile = true
                    return
                }
                data.append(contentsOf: chunk[0..<n])
            }
        }
    }
}
