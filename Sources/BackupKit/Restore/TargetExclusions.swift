// TargetExclusions: the paths of the target device that carry the exclusion attribute, which a restore
// does not restore over ("attribute set locally", BackupAgent2's MBRestorePolicy; ios-device-layout.md §4.2).
import DeviceKit
import Glibc
import SystemKit

/// The outermost paths of a fresh target device flagged excluded from backup by the general attributes
/// (Apple's `com_apple_backup_excludeItem`, the legacy `com.apple.MobileBackup` = 1), found before the first
/// member is read. A restore skips every member at or below one (hashed and checked against the manifest, never
/// created) and keeps the device's own directory there, flag included. The device's `Library/Preferences` is
/// not judged (the backup agent ignores the attribute there). The engine-specific attributes are not consulted:
/// the engine is recorded in the manifest, the archive's last member, after every file has been placed.
struct TargetExclusions {
    /// One flagged path of the target: relative to ROOT, the reason, and the names of the flag attributes to keep
    /// on it (their values are read again when kept, one at a time, so memory stays bounded).
    struct Flagged {
        let path: [UInt8]
        let reason: ExclusionReason
        let attributes: [String]
        var text: String { String(decoding: path, as: UTF8.self) }
    }

    /// Entries a fresh device may hold and still be scanned (it holds only empty skeleton directories).
    static let maximumEntries = 65_536
    /// Bytes of relative paths the scan may hold (every entry's path counted once): 16 MiB.
    static let maximumPathBytes = 16 << 20
    /// Directory levels scanned (a member path has at most 256).
    static let maximumDepth = 256

    private(set) var flagged: [Flagged] = []
    /// The target device's contained handle, to read the flags again when they are kept; nil for `none`.
    private(set) var root: ContainedRoot?

    static let none = TargetExclusions()

    /// Scans the fresh device `root` (through its contained handle: nothing followed, nothing outside ROOT
    /// read). `DeviceLocal` and restore staging directories are passed over. Fails naming the path when an
    /// attribute cannot be read, or when the device holds more than `entryLimit` entries or `pathByteLimit` bytes
    /// of paths (memory stays bounded whatever the device holds).
    static func scan(
        _ root: ContainedRoot, entryLimit: Int = maximumEntries, pathByteLimit: Int = maximumPathBytes
    ) throws -> TargetExclusions {
        var found = TargetExclusions()
        found.root = root
        var seen = 0
        var pathBytes = 0
        var pending: [(relative: String, depth: Int)] = [("", 0)]
        while let (directory, depth) = pending.popLast() {
            guard let names = try root.names(directory) else { continue }
            for bytes in names {
                seen += 1
                if seen > entryLimit {
                    throw RestoreError.aborted(
                        "\(root.display(directory)): the device holds more than \(entryLimit) entries; "
                            + "a fresh device holds only its empty skeleton")
                }
                guard let name = String(validating: bytes, as: UTF8.self) else { continue }
                let relative = directory.isEmpty ? name : "\(directory)/\(name)"
                pathBytes += relative.utf8.count
                if pathBytes > pathByteLimit {
                    throw RestoreError.aborted(
                        "\(root.display(directory)): the device's paths add up to more than \(pathByteLimit) "
                            + "bytes; a fresh device holds only its empty skeleton")
                }
                if directory.isEmpty
                    && (name == DeviceLayout.deviceLocal || name.hasPrefix(StagingDirectory.prefix))
                {
                    continue
                }
                guard let status = try root.status(relative), status.kind == .directory || status.kind == .regular
                else { continue }
                let ignored = ExclusionRules(deviceRoot: true).ignoresGeneralAttributes(relative)
                if !ignored, let flag = try flag(relative, in: root) {
                    found.flagged.append(flag)
                    continue  // the outermost flag covers everything below it
                }
                if status.kind == .directory && depth + 1 < maximumDepth { pending.append((relative, depth + 1)) }
            }
        }
        found.flagged.sort { $0.path.lexicographicallyPrecedes($1.path) }
        return found
    }

    /// The general flag on `relative`, if any, with the attributes that carry it.
    private static func flag(_ relative: String, in root: ContainedRoot) throws -> Flagged? {
        var attributes: [String] = []
        var reason: ExclusionReason?
        if try root.attribute(BackupExclusionAttribute.apple, of: relative) != nil {
            attributes.append(BackupExclusionAttribute.apple)
            reason = .appleExcludeXattr
        }
        if let value = try root.attribute(BackupExclusionAttribute.legacyMobileBackup, of: relative),
            value.withUnsafeBytes({ ExclusionAttributes.mobileBackupExcludes($0) })
        {
            attributes.append(BackupExclusionAttribute.legacyMobileBackup)
            reason = reason ?? .mobileBackupXattr
        }
        return reason.map { Flagged(path: Array(relative.utf8), reason: $0, attributes: attributes) }
    }

    /// The flag attributes of `flag` as the target device holds them now (name and value).
    func attributes(of flag: Flagged) throws -> [(name: String, value: [UInt8])] {
        guard let root else { return [] }
        return try flag.attributes.compactMap { name in try root.attribute(name, of: flag.text).map { (name, $0) } }
    }

    /// The index of the flagged path at or above `path`, if any.
    func covering(_ path: [UInt8]) -> Int? {
        for (index, flag) in flagged.enumerated() where path.count >= flag.path.count {
            if path.starts(with: flag.path) && (path.count == flag.path.count || path[flag.path.count] == 0x2F) {
                return index
            }
        }
        return nil
    }
}
