// MemberDigest+Member: adds an archive member as read by ArchiveReader to the members digest.
import TarKit

extension Manifest.MemberDigest {
    /// Adds `member` (its name normalised as `path`) with the fields the canonical record covers.
    func add(_ member: ArchiveReader.Member, path: [UInt8]) {
        let kind: UInt8
        switch member.kind {
        case .regular: kind = UInt8(ascii: "f")
        case .directory: kind = UInt8(ascii: "d")
        case .symlink: kind = UInt8(ascii: "l")
        case .hardLink: kind = UInt8(ascii: "h")
        default: kind = UInt8(ascii: "?")
        }
        add(
            kind: kind, path: path, permissions: member.permissions, uid: member.uid, gid: member.gid,
            size: member.kind == .regular ? UInt64(max(0, member.size)) : 0, mtimeSeconds: member.mtimeSeconds,
            mtimeNanoseconds: member.mtimeNanoseconds, link: member.linkBytes, xattrs: member.xattrs)
    }
}
