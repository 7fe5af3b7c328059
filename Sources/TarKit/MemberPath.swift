// MemberPath: an archive member's name, checked and normalised before anything touches the disk.
//
// The textual checks here give early, clear errors; containment itself is the kernel's job (openat2 with
// RESOLVE_BENEATH in StagingTree), so nothing here is load-bearing for safety on its own.
import Glibc

/// A member name split into relative components: no empty name, no NUL, not absolute, no `..`,
/// `.` components and a trailing `/` dropped, each component at most 255 bytes, at most 4095 bytes in all.
public struct MemberPath: Equatable, Sendable {
    /// The components joined by `/` (empty for the archive root, `.` or `./`).
    public let bytes: [UInt8]
    /// Index in `bytes` where the last component starts.
    let nameStart: Int
    /// Number of components.
    public let depth: Int

    /// The longest name accepted, in bytes (Linux's `PATH_MAX` less the NUL).
    public static let maxLength = 4095
    /// The longest component accepted, in bytes (`NAME_MAX`).
    public static let maxComponent = 255
    /// The most components accepted.
    public static let maxDepth = 256

    /// Checks `raw`; throws a `String` reason (the caller names the member).
    public init(_ raw: [UInt8]) throws(MemberPathProblem) {
        guard !raw.isEmpty else { throw .empty }
        // memchr: a name is looked through for NUL and then for each `/` (a byte-by-byte loop was 3% of a restore's
        // reading thread).
        guard raw.withUnsafeBytes({ memchr($0.baseAddress!, 0, $0.count) }) == nil else { throw .nul }
        guard raw[0] != UInt8(ascii: "/") else { throw .absolute }
        guard raw.count <= MemberPath.maxLength else { throw .tooLong }
        let slash = UInt8(ascii: "/")
        let dot = UInt8(ascii: ".")
        // The components are `raw` itself (as nearly every name is normalised already) until one is dropped; only then
        // is a copy made, of the components kept so far, and the rest appended to it.
        var copy: [UInt8]?
        var depth = 0
        var lastStart = 0
        var start = 0
        while start < raw.count {
            let end = raw.withUnsafeBytes { bytes in
                memchr(bytes.baseAddress! + start, Int32(slash), bytes.count - start).map {
                    UnsafeRawPointer($0) - bytes.baseAddress!
                } ?? bytes.count
            }
            let length = end - start
            if length == 0 || (length == 1 && raw[start] == dot) {
                if copy == nil {
                    copy = Array(raw[..<max(0, start - 1)])
                    copy?.reserveCapacity(raw.count)
                }
                start = end + 1
                continue
            }
            if length == 2 && raw[start] == dot && raw[start + 1] == dot { throw .dotDot }
            guard length <= MemberPath.maxComponent else { throw .componentTooLong }
            if copy != nil {
                if copy?.isEmpty == false { copy?.append(slash) }
                lastStart = copy?.count ?? 0
                copy?.append(contentsOf: raw[start..<end])
            } else {
                lastStart = start
            }
            depth += 1
            start = end + 1
        }
        guard depth <= MemberPath.maxDepth else { throw .tooDeep }
        // A trailing `/` ends the last component without starting another: dropped too.
        if copy == nil && raw.last == slash { copy = Array(raw.dropLast()) }
        bytes = copy ?? raw
        nameStart = lastStart
        self.depth = depth
    }

    /// Whether `raw` normalises to `normalized` (a name with no `.` or empty component), looked at cheaply first: a
    /// name that does ends with `normalized` once trailing `/` and `.` bytes are dropped, so most others are told
    /// apart without the full check (every member's name is compared with the manifest's).
    public static func names(_ raw: [UInt8], _ normalized: [UInt8]) -> Bool {
        var end = raw.count
        while end > 0 && (raw[end - 1] == UInt8(ascii: "/") || raw[end - 1] == UInt8(ascii: ".")) { end -= 1 }
        guard let last = normalized.last, last != UInt8(ascii: "/"), last != UInt8(ascii: "."),
            end >= normalized.count, raw[(end - normalized.count)..<end].elementsEqual(normalized)
        else { return false }
        return (try? MemberPath(raw))?.bytes == normalized
    }

    /// The archive root itself (`.`, `./`).
    public var isRoot: Bool { bytes.isEmpty }
    /// The normalised name as text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }
    /// The last component.
    public var name: ArraySlice<UInt8> { bytes[nameStart...] }
    /// Everything before the last component (empty at the top level).
    public var parent: ArraySlice<UInt8> { bytes[..<max(0, nameStart - 1)] }
    /// The first component.
    public var top: ArraySlice<UInt8> {
        bytes[..<(bytes.firstIndex(of: UInt8(ascii: "/")) ?? bytes.endIndex)]
    }

    /// Checks the symlink `target`, placed at this path, resolving it textually from the link's directory: it
    /// must not be absolute, climb above the root, resolve to the root itself, or point into `DeviceLocal`
    /// (device-local state is never reachable from restored data). An early, per-link check: it takes every
    /// component for a directory, so `link/..` looks like the link's own directory. Once every member is in,
    /// `SymlinkResolver` follows each link through the other restored links against ROOT's final layout, and the
    /// kernel checks the chains again (`StagingTree.checkSymlinkChains`).
    public func checkSymlinkTarget(_ target: [UInt8], deviceLocal: [UInt8]) throws(MemberPathProblem) {
        guard !target.isEmpty else { throw .emptyLinkTarget }
        guard !target.contains(0) else { throw .nul }
        guard target[0] != UInt8(ascii: "/") else { throw .absoluteLinkTarget }
        guard target.count <= MemberPath.maxLength else { throw .tooLong }
        var stack: [ArraySlice<UInt8>] = parent.isEmpty ? [] : parent.split(separator: UInt8(ascii: "/"))
        for component in target.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            if component.count == 1 && component.first == UInt8(ascii: ".") { continue }
            if component.count == 2 && component.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
                guard !stack.isEmpty else { throw .linkEscapes }
                stack.removeLast()
            } else {
                stack.append(component)
            }
        }
        guard let first = stack.first else { throw .linkToRoot }
        if first.elementsEqual(deviceLocal) { throw .linkIntoDeviceLocal }
    }
}

/// Why a member name or link target was refused.
public enum MemberPathProblem: Error, Equatable, Sendable, CustomStringConvertible {
    case empty, nul, absolute, dotDot, tooLong, componentTooLong, tooDeep
    case emptyLinkTarget, absoluteLinkTarget, linkEscapes, linkToRoot, linkIntoDeviceLocal

    /// The reason, in words, for a message that names the member.
    public var description: String {
        switch self {
        case .empty: "empty name"
        case .nul: "name contains a NUL byte"
        case .absolute: "absolute path"
        case .dotDot: "'..' component"
        case .tooLong: "name longer than \(MemberPath.maxLength) bytes"
        case .componentTooLong: "a path component longer than \(MemberPath.maxComponent) bytes"
        case .tooDeep: "more than \(MemberPath.maxDepth) levels deep"
        case .emptyLinkTarget: "symlink with an empty target"
        case .absoluteLinkTarget: "symlink to an absolute path"
        case .linkEscapes: "symlink target leaves the restore root"
        case .linkToRoot: "symlink target is the restore root itself"
        case .linkIntoDeviceLocal: "symlink target is inside DeviceLocal (device-local state)"
        }
    }
}
