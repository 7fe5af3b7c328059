// RestoreSession+Files: regular files: data (hashed where it is written) and metadata to the writer; xattr policy.
import DeviceKit
import Foundation
import Glibc
import SystemKit
import TarKit

extension RestoreSession {
    /// Queues the file's creation, data and metadata, and for a format with a manifest the logging of its digest: a
    /// small file is hashed by the thread that writes it, a large one here as it is read
    /// (`StagingPipeline.hashesWhereWritten`).
    func extractFile(_ member: ArchiveReader.Member, _ path: MemberPath, _ pipeline: StagingPipeline) throws {
        let size = UInt64(max(0, member.size))
        try reserve(size, for: member)
        // A plist the restore parses later is checked now, as verify checks it (capped before it is read).
        let plist = RestoreSession.devicePlist(path)
        var plistBytes: [UInt8]? = nil
        if plist != nil {
            guard size <= UInt64(DevicePlist.maxBytes) else {
                throw RestoreError.refusedMember(member.path, reason: RestoreSession.plistProblem(size: size))
            }
            plistBytes = []
        }
        let mode = permissions(member)
        let hashedWhereWritten = pipeline.hashesWhereWritten(size: size)
        try pipeline.addFile(
            path, permissions: mode & 0o777, hashed: hashedWhereWritten,
            writtenHere: pipeline.writesWhereRead(size: size), in: tree)
        if !hashedWhereWritten { try digests?.file.reset() }
        let sparseTail = try copyData(
            member, size: size, to: pipeline, hashedThere: hashedWhereWritten, collecting: &plistBytes)
        if let plist, let plistBytes, let problem = RestoreSession.plistProblem(plist, plistBytes, member: member) {
            throw RestoreError.refusedMember(member.path, reason: problem)
        }
        let chmod = mode & ~0o777 != 0 || mode & processUmask != 0 ? mode : nil
        try pipeline.closeFile(
            truncateTo: sparseTail ? size : nil, owner: try owner(member), chmod: chmod,
            xattrs: try userXattrs(member, path, symlink: false), mtime: mtime(member),
            logged: hashedWhereWritten ? (path.bytes, size) : nil)
        if !hashedWhereWritten, let digests {
            try pipeline.logDigest(path: path.bytes, size: size, digest: digests.file.finalize())
        }
        report.counts.files += 1
        report.counts.bytes += size
    }

    /// Reads (and hashes here, for a format with a manifest) a member's data without writing it (DeviceLocal members:
    /// checked, never applied); its digest is logged in its place among the files the pipeline applies.
    func hashOnly(_ member: ArchiveReader.Member, _ path: MemberPath, _ pipeline: StagingPipeline) throws {
        let size = UInt64(max(0, member.size))
        try reserve(size, for: member)  // counted too, so a skipped member cannot be a bomb either
        try digests?.file.reset()
        var none: [UInt8]? = nil
        try copyData(member, size: size, to: nil, hashedThere: false, collecting: &none)
        if let digests { try pipeline.logDigest(path: path.bytes, size: size, digest: digests.file.finalize()) }
    }

    /// Reads the member's data blocks into the pipeline (when given) and, for a format with a manifest, into the
    /// digest here, or, `hashedThere`, into the pipeline's hash where they are written (holes as operations), by
    /// `MemberData`'s rules. Sparse holes are hashed as zeros and left as holes; returns true when the member ends in
    /// one (the file must be extended to its size). `collected`, when not nil, gets the data too (holes as zeros).
    @discardableResult
    private func copyData(
        _ member: ArchiveReader.Member, size: UInt64, to pipeline: StagingPipeline?, hashedThere: Bool,
        collecting collected: inout [UInt8]?
    ) throws -> Bool {
        do {
            return try MemberData.read(
                member, size: size, from: reader, digest: hashedThere ? nil : digests?.file, collecting: &collected,
                interruption: { () throws(RestoreError) in try checkInterruption() },
                block: { bytes, offset in try pipeline?.addData(bytes, offset: offset) },
                hole: { count in
                    // In bounded parts, asking for an interruption between them: a hole can be huge.
                    guard hashedThere, let pipeline else { return }
                    var remaining = count
                    while remaining > 0 {
                        try checkInterruption()
                        let part = Int(min(remaining, UInt64(StagingBatch.holeUnit)))
                        try pipeline.addHole(part)
                        remaining -= UInt64(part)
                    }
                })
        } catch let problem as MemberData.Problem {
            throw RestoreError.refusedMember(member.path, reason: problem.reason)
        }
    }

    /// Why restore would fail on the device plist `member` holding `bytes` (`DevicePlist.check`, which verify
    /// uses too), or nil.
    static func plistProblem(_ plist: DevicePlist, _ bytes: [UInt8], member: ArchiveReader.Member) -> String? {
        do {
            try plist.check(bytes, path: member.path)
            return nil
        } catch DeviceError.malformedPlist(_, let reason) {
            return "malformed property list (\(reason))"
        } catch {
            return "\(error)"
        }
    }

    /// Why a device plist of `size` bytes is refused before it is read.
    static func plistProblem(size: UInt64) -> String {
        "a device plist of \(size) bytes, more than one may hold (\(DevicePlist.maxBytes))"
    }

    /// The member's `user.*` xattrs to apply; others are skipped with a warning, and so are any on a symlink
    /// (Linux allows none there). Conflicting values were refused before (`MemberRules.xattrProblem`).
    func userXattrs(_ member: ArchiveReader.Member, _ path: MemberPath, symlink: Bool) throws -> [(
        name: String, value: [UInt8]
    )] {
        guard !member.xattrs.isEmpty else { return [] }
        var seen: Set<String> = []
        var result: [(name: String, value: [UInt8])] = []
        for (name, value) in member.xattrs {
            guard seen.insert(name).inserted else { continue }
            guard name.hasPrefix("user."), name.count > 5 else {
                warnings.skippedXattr(name)
                continue
            }
            if symlink {
                warnings.symlinkXattrs += 1
            } else {
                result.append((name, value))
            }
        }
        return result
    }
}
