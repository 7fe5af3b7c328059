// ExclusionRules: the one evaluator of what a backup skips, shared by backup, --dry-run and `exclude check`.
import Glibc
import SystemKit

/// Decides every reason a backup skips one entry. Callers gather the facts about the file (its status,
/// its extended attributes through `AttributeReader`, a directory's `CACHEDIR.TAG`) and this type
/// combines them with the path rules (iOS rules on a device root, `--exclude` patterns).
public struct ExclusionRules: Sendable {
    /// Whether the tree's root is a device root (the iOS rules apply).
    public let deviceRoot: Bool
    /// The `--exclude` globs.
    public let patterns: [ExclusionPattern]
    /// The engine whose attribute rules apply (the cloud-only and unencrypted-only attributes).
    public let engine: AppleBackupEngine

    public init(deviceRoot: Bool, patterns: [ExclusionPattern] = [], engine: AppleBackupEngine = .default) {
        self.deviceRoot = deviceRoot
        self.patterns = patterns
        self.engine = engine
    }

    /// Whether the general exclusion attributes are ignored at `path` (relative to the root): the device's own
    /// `Library/Preferences` and below, on a device root, under every engine.
    func ignoresGeneralAttributes(path: UnsafePointer<UInt8>, length: Int) -> Bool {
        deviceRoot && DevicePathRules.ignoresGeneralAttributes(UnsafeBufferPointer(start: path, count: length))
    }

    /// `ignoresGeneralAttributes` for callers holding a `String`.
    public func ignoresGeneralAttributes(_ relativePath: String) -> Bool {
        let bytes = Array(relativePath.utf8)
        return bytes.withUnsafeBufferPointer { ignoresGeneralAttributes(path: $0.baseAddress!, length: $0.count) }
    }

    /// The attribute reasons (`AttributeReader.exclusionReasons`, every engine's) this engine honours: the
    /// engine-specific ones only for their engine, the general ones except where `ignoringGeneral`.
    public func honoured(_ attributes: ExclusionReasons, ignoringGeneral: Bool) -> ExclusionReasons {
        var kept = attributes.subtracting(.engineSpecificAttributes)
        kept.formUnion(attributes.intersection(engine.engineSpecificReasons))
        if ignoringGeneral { kept.subtract(.generalAttributes) }
        return kept
    }

    /// The reasons that depend only on the path. `path` is relative to the root and NUL-terminated
    /// right after `length` bytes; its last component starts at byte `basename`.
    func pathReasons(path: UnsafePointer<UInt8>, length: Int, basename: Int) -> ExclusionReasons {
        var reasons: ExclusionReasons = []
        if deviceRoot {
            reasons.formUnion(DevicePathRules.reasons(for: UnsafeBufferPointer(start: path, count: length)))
        }
        if !patterns.isEmpty {
            let text = UnsafeRawPointer(path).assumingMemoryBound(to: CChar.self)
            if patterns.contains(where: { $0.matches(path: text, basename: text + basename) }) {
                reasons.insert(.pattern)
            }
        }
        return reasons
    }

    /// The reasons that depend only on the path, for callers holding a `String`.
    public func pathReasons(_ relativePath: String) -> ExclusionReasons {
        var bytes = Array(relativePath.utf8)
        let basename = bytes.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
        let length = bytes.count
        bytes.append(0)
        return bytes.withUnsafeBufferPointer { pathReasons(path: $0.baseAddress!, length: length, basename: basename) }
    }

    /// Every reason for one entry: the path rules plus the facts read from the file system.
    /// - Parameters:
    ///   - status: the entry's statx (nodump).
    ///   - attributes: reasons from its extended attributes (`AttributeReader.exclusionReasons`).
    ///   - cacheDirectoryTag: a directory holding a valid `CACHEDIR.TAG`.
    ///   - pathReasons: `pathReasons(...)` of its relative path.
    public static func combine(
        status: FileStatus, attributes: ExclusionReasons, cacheDirectoryTag: Bool, pathReasons: ExclusionReasons
    ) -> ExclusionReasons {
        var reasons = attributes.union(pathReasons)
        if status.noDump { reasons.insert(.nodump) }
        if cacheDirectoryTag { reasons.insert(.cachedirTag) }
        return reasons
    }
}
