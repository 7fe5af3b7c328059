// RestoreTestSupport: scratch layouts (fresh device root, sentinel, outside); snapshots are TestSupport's TreeSnapshot.
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
        try Sentinel.make(at: sentinel)
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
