// RestoreSession+Files: regular files: data written once in large blocks, hashed on the way, then metadata.
import CSupport
import Glibc
import SystemKit

extension RestoreSession {
    /// Creates the file, writes its data (hashing it), sets owner, mode, user xattrs and mtime, logs the digest.
    func extractFile(_ member: ArchiveReader.Member, _ path: MemberPath) throws {
        let size = UInt64(max(0, member.size))
        try reserve(size, for: member)
        let mode = permissions(member)
        let file = try tree.createFile(path, permissions: mode & 0o777)
        try digest.reset()
        try copyData(member, size: size, to: file)
        let fd = file.rawValue
        if ownership {
            let (uid, gid) = (try owner(member.uid, member), try owner(member.gid, member))
            try SystemError.check("fchown", path: path.text) { fchown(fd, uid, gid) }
        }
        if mode & ~0o777 != 0 || mode & processUmask != 0 {
            try SystemError.check("fchmod", path: path.text) { fchmod(fd, mode) }
        }
        if !member.xattrs.isEmpty { try applyXattrs(member, path, to: fd) }
        if let mtime = mtime(member) {
            var times = [timespec(tv_sec: 0, tv_nsec: CSUPPORT_UTIME_OMIT), mtime]
            try SystemError.check("futimens", path: path.text) { futimens(fd, &times) }
        }
        try file.close()
        try log.append(path: path.bytes, size: size, digest: digest.finalize())
        report.files += 1
        report.bytes += size
    }

    /// Hashes a member's data without writing it (DeviceLocal members: checked, never applied).
    func hashOnly(_ member: ArchiveReader.Member, _ path: MemberPath) throws {
        let size = UInt64(max(0, member.size))
        try digest.reset()
        try copyData(member, size: size, to: nil)
        try log.append(path: path.bytes, size: size, digest: digest.finalize())
    }

    /// Reads the member's data blocks into the digest and (when given) the file. Sparse holes are hashed as
    /// zeros and left as holes.
    private func copyData(_ member: ArchiveReader.Member, size: UInt64, to file: FileDescriptor?) throws {
        var position: UInt64 = 0
        while let block = try reader.readBlock() {
            try checkInterruption()
            let offset = UInt64(max(0, block.offset))
            guard offset >= position, offset &+ UInt64(block.bytes.count) <= size else {
                throw RestoreError.refusedMember(member.path, reason: "data blocks overlap or run past the member's size")
            }
            if offset > position { try hashZeros(offset - position) }
            if let file { try write(block.bytes, at: offset, to: file) }
            digest.update(block.bytes)
            position = offset + UInt64(block.bytes.count)
        }
        if position < size {
            guard member.isSparse else {
                throw RestoreError.refusedMember(member.path, reason: "\(size - position) bytes of data missing")
            }
            try hashZeros(size - position)
            if let file {
                try SystemError.check("ftruncate", path: file.path) { ftruncate(file.rawValue, off_t(size)) }
            }
        }
    }

    private func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64, to file: FileDescriptor) throws {
        var done = 0
        while done < bytes.count {
            let n = try SystemError.check("write", path: file.path) {
                pwrite(file.rawValue, bytes.baseAddress! + done, bytes.count - done, off_t(offset) + off_t(done))
            }
            done += n
        }
    }

    private func hashZeros(_ count: UInt64) throws {
        var remaining = count
        while remaining > 0 {
            try checkInterruption()
            let chunk = Int(min(remaining, UInt64(RestoreSession.zeros.count)))
            RestoreSession.zeros.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[0..<chunk])) }
            remaining -= UInt64(chunk)
        }
    }

    private static let zeros = [UInt8](repeating: 0, count: 64 * 1024)

    /// Applies the member's `user.*` xattrs to `fd` (nil: a symlink, which cannot hold them); skips others with
    /// a warning. Two different values for one name are refused.
    func applyXattrs(_ member: ArchiveReader.Member, _ path: MemberPath, to fd: Int32?) throws {
        var seen: [String: [UInt8]] = [:]
        for (name, value) in member.xattrs {
            if let previous = seen[name] {
                guard previous == value else {
                    throw RestoreError.refusedMember(member.path, reason: "two different values for the extended attribute \(name)")
                }
                continue
            }
            seen[name] = value
            guard name.hasPrefix("user."), name.count > 5 else {
                warnings.skippedXattr(name)
                continue
            }
            guard let fd else {
                warnings.symlinkXattrs += 1
                continue
            }
            try SystemError.check("fsetxattr \(name)", path: path.text) {
                value.withUnsafeBytes { fsetxattr(fd, name, $0.baseAddress, value.count, 0) }
            }
        }
    }
}
