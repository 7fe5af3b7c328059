// VerifyPass: one read of an archive by `devicectl verify`: each member judged by restore's rules, every file
// hashed, the manifest checked against what came before it.
import DeviceKit
import SystemKit
import TarKit

/// The state of one verification: the report, the digests logged for the manifest check, the members digest.
/// Problems are collected (up to `problemLimit`), never thrown; errors of the source end the read.
final class VerifyPass {
    private let reader: any FormatSource
    private let problemLimit: Int
    private let interruption: @Sendable () -> Int32?
    private(set) var report = VerifyReport()
    private let log = DigestLog()
    private let digest: SHA256Digest
    private let memberDigest: Manifest.MemberDigest
    private var observed = ManifestCheck.Observed()
    private var manifestSeen = false
    /// The names restore would stage, for what its staging tree refuses.
    private var names = StagedNames()
    private let progress: ((ReadProgress) -> Void)?
    private let started = MonotonicClock.seconds()

    init(
        reader: any FormatSource, problemLimit: Int, interruption: @escaping @Sendable () -> Int32?,
        progress: ((ReadProgress) -> Void)? = nil
    ) throws {
        self.reader = reader
        self.problemLimit = problemLimit
        self.interruption = interruption
        self.progress = progress
        digest = try SHA256Digest()
        memberDigest = try Manifest.MemberDigest()
    }

    /// Reads every member, then judges what only the whole archive shows. A damaged stream is a problem.
    func run() throws -> VerifyReport {
        do {
            while let member = try reader.next() {
                try verify(member)
                if let progress {
                    progress(
                        ReadProgress(files: report.counts.files, bytes: report.counts.bytes, of: reader, since: started))
                }
            }
            if manifestSeen, let problem = reader.alterationProblem { add(problem) }
            for directory in StagedNames.skeleton {
                if let problem = names.skeletonProblem(directory) {
                    add("'\(String(decoding: directory, as: UTF8.self))': \(problem) (restore refuses it)")
                }
            }
            if !manifestSeen {
                add("the archive has no devicectl manifest (\(Manifest.memberName)): nothing to verify against")
            }
        } catch let error as ArchiveReaderError {
            report.add(error, limit: problemLimit)
        }
        report.format = reader.formatName
        report.filters = reader.filterNames
        report.archiveBytes = reader.inputBytes
        return report
    }

    private func add(_ problem: String) { report.add(problem, limit: problemLimit) }

    /// A problem restore would refuse the member for.
    private func refused(_ member: ArchiveReader.Member, _ reason: String) {
        add("member '\(member.path)': \(reason) (restore refuses it)")
    }

    private func verify(_ member: ArchiveReader.Member) throws {
        report.members += 1
        let path: MemberPath
        do {
            path = try MemberPath(member.pathBytes)
        } catch {
            refused(member, error.description)
            try reader.skipData()
            return
        }
        if manifestSeen {
            add("member '\(member.path)' comes after the manifest (restore refuses it)")
        }
        if path.bytes == RestoreSession.manifestName && !manifestSeen {
            if let refusal = MemberRules.manifestRefusal(member) { refused(member, refusal) }
            if member.kind == .regular {
                try readManifest()
                return
            }
        }
        if !manifestSeen { memberDigest.add(member, path: path.bytes) }
        if let refusal = MemberRules.refusal(member, path) {
            refused(member, refusal)
        } else if let refusal = stage(member, path) {
            refused(member, refusal)
        }
        switch member.kind {
        case .regular:
            observed.counts.files += 1
            observed.counts.bytes &+= UInt64(max(0, member.size))
            report.counts.files += 1
            report.counts.bytes &+= UInt64(max(0, member.size))
            try hashFile(member, path)
        case .directory:
            if !path.isRoot {
                observed.counts.directories += 1
                report.counts.directories += 1
            }
        case .symlink:
            observed.counts.symlinks += 1
            report.counts.symlinks += 1
        case .hardLink:
            observed.counts.hardlinks += 1
            report.counts.hardlinks += 1
            if try member.size != 0 || reader.readBlock() != nil {
                refused(member, "a hard link carrying data")
                try reader.skipData()
            }
        default:
            try reader.skipData()
        }
    }

    /// Places `member` among the names restore would stage (not the root entry, nothing below DeviceLocal, which
    /// restore never creates); the reason restore's staging tree refuses it, or nil.
    private func stage(_ member: ArchiveReader.Member, _ path: MemberPath) -> String? {
        guard !path.top.elementsEqual(RestoreSession.deviceLocal) else { return nil }
        switch member.kind {
        case .regular, .directory, .symlink: return names.place(path, kind: member.kind)
        case .hardLink:
            guard let target = try? MemberPath(member.linkBytes ?? []) else { return nil }  // MemberRules refused it
            return names.link(path, to: target)
        default: return nil
        }
    }

    /// Checks the manifest against the members read before it.
    private func readManifest() throws {
        manifestSeen = true
        report.hasManifest = true
        observed.memberCount = memberDigest.count
        observed.memberDigest = memberDigest.hex
        let check = try ManifestCheck(log: try log.reader(), observed: observed, problemLimit: problemLimit)
        do {
            while let block = try reader.readBlock() { try check.feed(block.bytes) }
            let outcome = try check.finish()
            report.header = outcome.header
            report.totals = outcome.totals
            report.metadataChecked = outcome.checkedMembers
            for problem in outcome.problems { add(problem) }
            report.problemCount += outcome.problemCount - outcome.problems.count
        } catch let error as RestoreError {
            add(error.message)
            try reader.skipData()
        }
    }

    /// Hashes a file's data by restore's rules (`MemberData`, read on past a problem); a device plist restore parses
    /// is checked as restore checks it.
    private func hashFile(_ member: ArchiveReader.Member, _ path: MemberPath) throws {
        try digest.reset()
        let plist = RestoreSession.devicePlist(path)
        var plistBytes: [UInt8]? = plist == nil ? nil : []
        if plist != nil && member.size > DevicePlist.maxBytes {
            refused(member, RestoreSession.plistProblem(size: UInt64(member.size)))
            plistBytes = nil
        }
        do {
            _ = try MemberData.read(
                member, size: UInt64(max(0, member.size)), from: reader, digest: digest, collecting: &plistBytes,
                drain: true, interruption: { () throws(ArchiveReaderError) in
                    if let signal = interruption() { throw .interrupted(signal: signal) }
                })
            if let plist, let bytes = plistBytes,
                let problem = RestoreSession.plistProblem(plist, bytes, member: member)
            {
                refused(member, problem)
            }
        } catch let problem as MemberData.Problem {
            refused(member, problem.reason)
        }
        try digest.withFinalDigest { try log.append(path: path.bytes, size: UInt64(max(0, member.size)), digest: $0) }
    }
}
