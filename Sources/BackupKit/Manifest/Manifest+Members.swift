// Manifest+Members: an optional manifest line that covers every member's metadata, not just file data.
//
// Additive to the manifest contract: `{"kind":"members","count":N,"sha256":hex,"manifestSha256":hex}` as the
// manifest's LAST line (after totals). The file lines prove file contents; `sha256` proves names, types,
// modes, owners, mtimes (ns), link targets and xattrs of every member (directories and symlinks too), and
// `manifestSha256` proves every manifest byte before this line (header, file lines, totals). Together they
// make any flipped byte in the archive detectable. Readers that do not know the line ignore it; restore and
// verify check it when present.

extension Manifest {
    /// The members line.
    public struct Members: Codable, Sendable, Equatable {
        public var kind = "members"
        /// Members covered: every member before the manifest, in archive order.
        public var count: UInt64
        /// SHA-256 (hex) over the members' canonical records (see `MemberDigest`).
        public var sha256: String
        /// SHA-256 (hex) of the manifest's bytes before this line (every earlier line with its newline).
        public var manifestSha256: String

        public init(count: UInt64, sha256: String, manifestSha256: String) {
            self.count = count
            self.sha256 = sha256
            self.manifestSha256 = manifestSha256
        }
    }

    /// Computes the members line: SHA-256 over one canonical record per member, in archive order.
    ///
    /// Record (integers little-endian): kind byte (`f` file, `d` directory, `l` symlink, `h` hard link,
    /// `?` anything else), u32 length + path (relative to ROOT, no `./`, no trailing `/`), u32 permission
    /// bits (07777), i64 uid, i64 gid, u64 data size (0 except regular files), i64 mtime seconds,
    /// i32 mtime nanoseconds, u32 length + link target (empty when none), u32 xattr count, then for each
    /// xattr sorted by name (duplicates with equal values once): u32 length + name, u32 length + value.
    public final class MemberDigest {
        private let digest: SHA256Digest
        private var record: [UInt8] = []
        public private(set) var count: UInt64 = 0

        public init() throws {
            digest = try SHA256Digest()
        }

        /// Adds one member.
        public func add(
            kind: UInt8, path: [UInt8], permissions: UInt32, uid: Int64, gid: Int64, size: UInt64,
            mtimeSeconds: Int64, mtimeNanoseconds: Int32, link: [UInt8]?, xattrs: [(name: String, value: [UInt8])]
        ) {
            record.removeAll(keepingCapacity: true)
            record.append(kind)
            appendBytes(path)
            append(permissions & 0o7777)
            append(uid)
            append(gid)
            append(size)
            append(mtimeSeconds)
            append(mtimeNanoseconds)
            appendBytes(link ?? [])
            var sorted: [(name: [UInt8], value: [UInt8])] = xattrs.map { (Array($0.name.utf8), $0.value) }
            sorted.sort {
                $0.name.lexicographicallyPrecedes($1.name)
                    || ($0.name == $1.name && $0.value.lexicographicallyPrecedes($1.value))
            }
            var unique: [(name: [UInt8], value: [UInt8])] = []
            for item in sorted where unique.last.map({ $0.name != item.name || $0.value != item.value }) ?? true {
                unique.append(item)
            }
            append(UInt32(unique.count))
            for item in unique {
                appendBytes(item.name)
                appendBytes(item.value)
            }
            digest.update(record)
            count += 1
        }

        /// The members digest (hex; finalizes it).
        public var hex: String { digest.hex }

        /// The line, given the SHA-256 (hex) of the manifest bytes written before it.
        public func line(manifestSha256: String) -> Members {
            Members(count: count, sha256: digest.hex, manifestSha256: manifestSha256)
        }

        private func appendBytes(_ bytes: [UInt8]) {
            append(UInt32(truncatingIfNeeded: bytes.count))
            record.append(contentsOf: bytes)
        }

        private func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { record.append(contentsOf: $0) }
        }
    }
}
