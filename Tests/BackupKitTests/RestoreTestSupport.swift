// RestoreTestSupport: scratch layouts (fresh device root, sentinel, outside) and whole-tree snapshots.
import BackupKit
import DeviceKit
import Foundation
import SystemKit
import TestSupport

/// A scratch area: `root` (a fresh device unless told otherwise) at `base/outer/root`, so `../` and
/// `../../` escapes land in `base` where a snapshot sees them, `sentinel` (must never change), the archive.
struct RestoreScratch {
    let base: String
    var root: String { base + "/outer/root" }
    var sentinel: String { base + "/sentinel" }
    var archive: String { base + "/archive.tar" }

    /// Makes the sentinel (a file and a directory) and, when `device`, a fresh device at `root`.
    init(base: String, device: Bool = true) throws {
        self.base = base
        try FileManager.default.createDirectory(atPath: sentinel + "/dir", withIntermediateDirectories: true)
        try Data("sentinel\n".utf8).write(to: URL(fileURLWithPath: sentinel + "/file"))
        try FileManager.default.createDirectory(atPath: base + "/outer", withIntermediateDirectories: true)
        if device { try Device.initialize(root) }
    }

    /// Writes `bytes` as the archive file.
    func write(_ bytes: [UInt8], to path: String? = nil) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path ?? archive))
    }

    /// Everything in the scratch area except the archive file.
    func snapshot() throws -> [String: String] {
        try TreeSnapshot.take(base) { $0 == "archive.tar" || $0.hasPrefix("archive") }
    }

    /// Restores the archive file onto `root` (no syncfs: tests do not need durability).
    @discardableResult
    func restore(_ configure: (inout RestoreOptions) -> Void = { _ in }) throws -> RestoreReport {
        var options = RestoreOptions()
        options.syncsBeforeMove = false
        options.interruption = { nil }
        configure(&options)
        return try ArchiveRestore.restore(archive: archive, root: root, options: options)
    }
}

/// The entries that differ between two snapshots, for failure messages.
func snapshotDifference(_ a: [String: String], _ b: [String: String]) -> String {
    Set(a.keys).union(b.keys).sorted().filter { a[$0] != b[$0] }.prefix(6)
        .map { "\($0): \(a[$0] ?? "absent") => \(b[$0] ?? "absent")" }.joined(separator: "; ")
}

/// Every entry under a directory: type, mode, size, mtime (ns), owner, link target, user xattrs, content
/// digest and hard-link group. Two equal snapshots mean byte-for-byte and metadata-for-metadata equal trees.
enum TreeSnapshot {
    static func take(_ top: String, skipping skip: (String) -> Bool = { _ in false }) throws -> [String: String] {
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
                line += " size=\(status.size) sha=\(try SHA256Digest.hex(of: bytes))"
                if status.linkCount > 1 {
                    if let first = inodes[status.inode] { line += " link=\(first)" } else { inodes[status.inode] = relative }
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
}
