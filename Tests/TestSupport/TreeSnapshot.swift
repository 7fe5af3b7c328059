// TreeSnapshot: everything about a directory tree in one comparable value, to prove that a failed command
// (or a killed one) changed nothing: restore, fault and fuzz tests compare snapshots taken before and after.
import CCrypto
import Foundation
import Glibc
import SystemKit

/// Every entry under a directory: type, mode, size, mtime (ns), owner, link target, user xattrs, content
/// digest and hard-link group. Two equal snapshots mean byte-for-byte and metadata-for-metadata equal trees.
public enum TreeSnapshot {
    /// Snapshot of `top` (its own mtime left out: creating and removing an entry inside changes it), keyed
    /// by path relative to `top` (`.` for `top`). `skip` receives relative paths; a skipped directory is not entered.
    public static func take(_ top: String, skipping skip: (String) -> Bool = { _ in false }) throws -> [String: String]
    {
        var result: [String: String] = [:]
        var inodes: [UInt64: String] = [:]
        func visit(_ relative: String) throws {
            let path = relative.isEmpty ? top : top + "/" + relative
            let status = try FileStatus.of(path)
            var line = "\(status.kind.rawValue) \(String(status.permissions, radix: 8)) \(status.uid):\(status.gid)"
            if !relative.isEmpty || status.kind != .directory {
                line += " mtime=\(status.mtimeSeconds).\(status.mtimeNanoseconds)"
            }
            switch status.kind {
            case .regular:
                let bytes = try FileDescriptor.open(path, flags: O_RDONLY).readAll()
                line += " size=\(status.size) sha=\(sha256(bytes))"
                if status.linkCount > 1 {
                    if let first = inodes[status.inode] {
                        line += " link=\(first)"
                    } else {
                        inodes[status.inode] = relative
                    }
                }
            case .symlink:
                var buffer = [CChar](repeating: 0, count: 4097)
                let n = readlink(path, &buffer, 4096)
                line += " -> " + String(decoding: buffer[0..<max(0, n)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            default:
                break
            }
            if status.kind != .symlink {
                for name in try ExtendedAttributes.names(at: path).sorted() where name.hasPrefix("user.") {
                    line += " \(name)=\(try ExtendedAttributes.value(name, at: path) ?? [])"
                }
            }
            result[relative.isEmpty ? "." : relative] = line
            if status.kind == .directory {
                for name in try FileManager.default.contentsOfDirectory(atPath: path).sorted() {
                    let child = relative.isEmpty ? name : relative + "/" + name
                    if !skip(child) { try visit(child) }
                }
            }
        }
        try visit("")
        return result
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
