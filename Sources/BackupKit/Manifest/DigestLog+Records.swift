// DigestLog+Records: log records in the log's encoding, gathered apart (a staging batch's files) and moved in at once.

extension DigestLog {
    /// Records encoded as the log stores them: path length (2 bytes, little-endian), path, size (8 bytes,
    /// little-endian), SHA-256 (32 bytes).
    struct Records {
        private(set) var bytes: [UInt8] = []
        private(set) var count = 0

        /// Appends a record (path at most 65535 bytes; member paths are at most 4095) whose digest is `digest`'s 32
        /// bytes (zeros when it has another length).
        mutating func append(path: some Collection<UInt8>, size: UInt64, digest: UnsafeRawBufferPointer) {
            let length = UInt16(min(path.count, Int(UInt16.max)))
            bytes.append(UInt8(length & 0xFF))
            bytes.append(UInt8(length >> 8))
            bytes.append(contentsOf: path.prefix(Int(length)))
            withUnsafeBytes(of: size.littleEndian) { bytes.append(contentsOf: $0) }
            if digest.count == 32 {
                bytes.append(contentsOf: digest)
            } else {
                bytes.append(contentsOf: repeatElement(0, count: 32))
            }
            count += 1
        }

        /// Appends `other`'s records after these.
        mutating func append(contentsOf other: Records) {
            bytes.append(contentsOf: other.bytes)
            count += other.count
        }

        mutating func removeAll() {
            bytes.removeAll(keepingCapacity: true)
            count = 0
        }
    }
}
