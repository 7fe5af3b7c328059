// MemberRules: the checks restore makes on each member's header before anything is created; verify reports the
// same ones, so the two refuse the same archives.
import DeviceKit
import TarKit

/// Restore's rules for a member's header (those that need no disk state), in restore's order. Restore refuses the
/// member with the reason; verify reports it ("member 'NAME': REASON (restore refuses it)"). The data rules (blocks
/// in order within the size, no missing data, device plists that parse) are checked as the data is read.
enum MemberRules {
    /// Why restore refuses `member`, named `path` (already a valid `MemberPath`), or nil. Members below
    /// `DeviceLocal/` are skipped by restore, so only their kind is judged.
    static func refusal(_ member: ArchiveReader.Member, _ path: MemberPath) -> String? {
        if path.isRoot {
            // ROOT keeps its own metadata: nothing else about the entry matters.
            return member.kind == .directory
                ? nil : "the archive root entry is a \(member.kind.name), not a directory"
        }
        if path.top.starts(with: RestoreSession.reservedPrefix) {
            return "the name is reserved for restore staging directories"
        }
        if let problem = devicePlistKindProblem(member, path) { return problem }
        let deviceLocal = path.top.elementsEqual(RestoreSession.deviceLocal)
        switch member.kind {
        case .regular, .directory:
            return deviceLocal ? nil : xattrProblem(member)
        case .symlink:
            guard !deviceLocal else { return nil }
            do {
                try path.checkSymlinkTarget(member.linkBytes ?? [], deviceLocal: RestoreSession.deviceLocal)
            } catch {
                return "\(error) ('\(member.linkTarget ?? "")')"
            }
            return xattrProblem(member)
        case .hardLink:
            guard !deviceLocal else { return nil }
            let target: MemberPath
            do {
                target = try MemberPath(member.linkBytes ?? [])
            } catch {
                return "hard link target '\(member.linkTarget ?? "")': \(error)"
            }
            if target.top.elementsEqual(RestoreSession.deviceLocal) {
                return "hard link into DeviceLocal (device-local state)"
            }
            return nil
        case .characterDevice, .blockDevice, .fifo, .socket, .unknown:
            return "a \(member.kind.name): device nodes, FIFOs and sockets are never restored"
        }
    }

    /// Why restore refuses the member named like the manifest, or nil: it must be a plain regular file.
    static func manifestRefusal(_ member: ArchiveReader.Member) -> String? {
        guard member.kind == .regular else { return "the manifest name is used by a \(member.kind.name)" }
        return member.isSparse ? "the manifest is a sparse file: devicectl never writes one" : nil
    }

    /// A device plist restore reads back (`DevicePlist`) must be a regular file or a hard link to one: DeviceKit
    /// opens it with O_NOFOLLOW, so a symlink or a directory there would fail the restore after extraction.
    static func devicePlistKindProblem(_ member: ArchiveReader.Member, _ path: MemberPath) -> String? {
        guard member.kind != .regular, member.kind != .hardLink, RestoreSession.devicePlist(path) != nil else {
            return nil
        }
        return "a device plist that is a \(member.kind.name), not a regular file"
    }

    /// Why the member's extended attributes cannot be restored, if they cannot: two different values for one
    /// name, or a `user.*` attribute beyond what Linux can hold (XATTR_NAME_MAX 255, XATTR_SIZE_MAX 65536:
    /// `fsetxattr` would fail, so no backup made on Linux has one).
    static func xattrProblem(_ member: ArchiveReader.Member) -> String? {
        var seen: [String: [UInt8]] = [:]
        for (name, value) in member.xattrs {
            if let previous = seen[name], previous != value {
                return "two different values for the extended attribute \(name)"
            }
            seen[name] = value
            guard name.hasPrefix("user.") else { continue }
            if name.utf8.count > 255 {
                return "the extended attribute name \(name.prefix(40))... is longer than Linux allows (255 bytes)"
            }
            if value.count > 65536 {
                return "the extended attribute \(name) holds \(value.count) bytes, more than Linux allows (65536)"
            }
        }
        return nil
    }
}
