// TreeSnapshot: everything about a directory tree in one comparable value, to prove that a failed command
// (or a killed one) changed nothing, or that two trees are the same: restore, fault, fuzz and scenario tests
// compare snapshots taken before and after, or of an old phone and a restored one.
import CCrypto
import Foundation
import Glibc
import SystemKit

/// Every entry under a directory: type, mode, owner, size, mtime (ns), link target, user xattrs, content digest
/// and hard-link group. Two equal snapshots mean byte-for-byte and metadata-for-metadata equal trees.
public struct TreeSnapshot: Equatable, Sendable {
    /// One entry of the tree.
    public struct Entry: Equatable, Sendable, CustomStringConvertible {
        public var kind: FileKind
        /// The permission bits (`st_mode & 0o7777`).
        public var mode: UInt32
        public var uid: UInt32
        public var gid: UInt32
        public var mtimeSeconds: Int64
        public var mtimeNanoseconds: UInt32
        /// A regular file's size and the SHA-256 of its content (lowercase hex); nil for anything else.
        public var size: UInt64?
        public var digest: String?
        /// For the second and later paths of a hard-linked file, the first path (in the walk's order).
        public var hardLink: String?
        /// A symlink's target.
        public var target: String?
        /// The `user.*` extended attributes (none read for a symlink).
        public var xattrs: [String: [UInt8]]

        public var description: String { line(withMtime: true) }

        /// The entry as one line; `withMtime` false leaves the mtime out.
        func line(withMtime: Bool) -> String {
            var line = "\(kind.rawValue) \(String(mode, radix: 8)) \(uid):\(gid)"
            if withMtime { line += " mtime=\(mtimeSeconds).\(mtimeNanoseconds)" }
            if let size, let digest { line += " size=\(size) sha=\(digest)" }
            if let hardLink { line += " link=\(hardLink)" }
            if let target { line += " -> " + target }
            for name in xattrs.keys.sorted() { line += " \(name)=\(xattrs[name]!)" }
            return line
        }
    }

    /// Entries by path relative to the snapshot's top (`.` is the top itself).
    public var entries: [String: Entry]

    /// Snapshot of `top`. `skip` receives relative paths; a skipped directory is not entered.
    public init(_ top: String, skipping skip: (String) -> Bool = { _ in false }) throws {
        var entries: [String: Entry] = [:]
        var inodes: [UInt64: String] = [:]
        func visit(_ relative: String) throws {
            let path = relative.isEmpty ? top : top + "/" + relative
            let status = try FileStatus.of(path)
            var entry = Entry(
                kind: status.kind, mode: status.permissions, uid: status.uid, gid: status.gid,
                mtimeSeconds: status.mtimeSeconds, mtimeNanoseconds: status.mtimeNanoseconds, size: nil, digest: nil,
                hardLink: nil, target: nil, xattrs: [:])
            switch status.kind {
            case .regular:
                let bytes = try FileDescriptor.open(path, flags: O_RDONLY).readAll()
                entry.size = status.size
                entry.digest = Self.sha256(bytes)
                if status.linkCount > 1 {
                    if let first = inodes[status.inode] {
                        entry.hardLink = first
                    } else {
                        inodes[status.inode] = relative
                    }
                }
            case .symlink:
                var buffer = [CChar](repeating: 0, count: 4097)
                let n = readlink(path, &buffer, 4096)
                entry.target = String(decoding: buffer[0..<max(0, n)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            default:
                break
            }
            if status.kind != .symlink {
                for name in try ExtendedAttributes.names(at: path) where name.hasPrefix("user.") {
                    entry.xattrs[name] = try ExtendedAttributes.value(name, at: path) ?? []
                }
            }
            entries[relative.isEmpty ? "." : relative] = entry
            if status.kind == .directory {
                for name in try FileManager.default.contentsOfDirectory(atPath: path).sorted() {
                    let child = relative.isEmpty ? name : relative + "/" + name
                    if !skip(child) { try visit(child) }
                }
            }
        }
        try visit("")
        self.entries = entries
    }

    /// Snapshot of `top` as one line per entry, keyed by relative path, with the top directory's own mtime left
    /// out (creating and removing an entry inside changes it). See `init(_:skipping:)`.
    public static func take(_ top: String, skipping skip: (String) -> Bool = { _ in false }) throws -> [String: String]
    {
        try TreeSnapshot(top, skipping: skip).entries.reduce(into: [:]) { lines, item in
            lines[item.key] = item.value.line(withMtime: item.key != "." || item.value.kind != .directory)
        }
    }

    /// The paths that differ from `other`, each with both sides, sorted (empty when the trees are the same).
    public func differences(from other: TreeSnapshot) -> [String] {
        Set(entries.keys).union(other.entries.keys).sorted().compactMap { path in
            let mine = entries[path]
            let theirs = other.entries[path]
            guard mine != theirs else { return nil }
            return "\(path): \(mine.map(\.description) ?? "missing") vs \(theirs.map(\.description) ?? "missing")"
        }
    }

    /// The same snapshot without the entries `predicate` picks (by relative path).
    public func removing(_ predicate: (String) -> Bool) -> TreeSnapshot {
        var copy = self
        copy.entries = entries.filter { !predicate($0.key) }
        return copy
    }

    /// The same snapshot with the mtimes of the paths `predicate` picks set to 0.
    public func ignoringMtimes(of predicate: (String) -> Bool) -> TreeSnapshot {
        var copy = self
        for path in entries.keys where predicate(path) {
            copy.entries[path]?.mtimeSeconds = 0
            copy.entries[path]?.mtimeNanoseconds = 0
        }
        return copy
    }

    /// SHA-256 of `bytes` as lowercase hex (OpenSSL, independent of the code under test).
    public static func sha256(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        _ = bytes.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &digest, &length, EVP_sha256(), nil) }
        return digest.map { String(format: "%02x", $0) }.joined()
    }
}

/// The entries that differ between two snapshots (the first six), for failure messages.
public func snapshotDifference(_ a: [String: String], _ b: [String: String]) -> String {
    Set(a.keys).union(b.keys).sorted().filter { a[$0] != b[$0] }.prefix(6)
        .map { "\($0): \(a[$0] ?? "absent") => \(b[$0] ?? "absent")" }.joined(separator: "; ")
}
