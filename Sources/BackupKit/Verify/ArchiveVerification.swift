// ArchiveVerification: `devicectl verify`: one read of the archive, every digest and the structure checked.
import DeviceKit
import Foundation
import SystemKit
import TarKit

/// Checks archives without extracting them.
public enum ArchiveVerification {
    /// Reads `archive` (a path or `-`) once: hashes every file, checks each member the way restore would
    /// (names, types, link targets), and compares everything with the manifest. Problems are collected, not
    /// thrown; a damaged or truncated stream ends the read with a problem saying where.
    /// An archive expanding beyond `limit` is refused at the member that crosses it (restore's check, with the
    /// budget a restore has onto ROOT). Throws only when the archive file cannot be opened (a damaged stream is
    /// a problem in the report).
    public static func verify(
        archive: String, problemLimit: Int = 1000, limit: ExpansionLimit = .reading,
        interruption: @escaping @Sendable () -> Int32? = { InterruptSignal.received }
    ) throws -> VerifyReport {
        var report = VerifyReport()
        let reader: any FormatSource
        do {
            reader = try ArchiveSource.open(archive, limit: limit, interruption: interruption)
        } catch let error as ArchiveReaderError {
            report.add(error, limit: problemLimit)
            return report
        }
        defer { try? reader.close() }
        let log = DigestLog()
        let digest = try SHA256Digest()
        let memberDigest = try Manifest.MemberDigest()
        var observed = ManifestCheck.Observed()
        var manifestSeen = false
        do {
            while let member = try reader.next() {
                report.members += 1
                let path: MemberPath
                do {
                    path = try MemberPath(member.pathBytes)
                } catch {
                    report.add("member '\(member.path)': \(error) (restore refuses it)", limit: problemLimit)
                    try reader.skipData()
                    continue
                }
                if manifestSeen {
                    report.add(
                        "member '\(member.path)' comes after the manifest (restore refuses it)", limit: problemLimit)
                }
                if path.bytes == RestoreSession.manifestName && member.kind == .regular && !manifestSeen {
                    manifestSeen = true
                    report.hasManifest = true
                    if member.isSparse {
                        report.add(
                            "the manifest member is a sparse file: devicectl never writes one (restore refuses it)",
                            limit: problemLimit)
                    }
                    observed.memberCount = memberDigest.count
                    observed.memberDigest = memberDigest.hex
                    let check = try ManifestCheck(log: try log.reader(), observed: observed, problemLimit: problemLimit)
                    do {
                        while let block = try reader.readBlock() { try check.feed(block.bytes) }
                        let outcome = try check.finish()
                        report.header = outcome.header
                        report.totals = outcome.totals
                        report.metadataChecked = outcome.checkedMembers
                        for problem in outcome.problems { report.add(problem, limit: problemLimit) }
                        report.problemCount += outcome.problemCount - outcome.problems.count
                    } catch let error as RestoreError {
                        report.add(
                            "\(error)".replacingOccurrences(of: "; nothing was restored", with: ""), limit: problemLimit
                        )
                        try reader.skipData()
                    }
                    continue
                }
                if !manifestSeen { memberDigest.add(member, path: path.bytes) }
                check(member, path, into: &report, limit: problemLimit)
                switch member.kind {
                case .regular:
                    observed.files += 1
                    observed.bytes &+= UInt64(max(0, member.size))
                    report.files += 1
                    report.bytes &+= UInt64(max(0, member.size))
                    try digest.reset()
                    // A device plist restore parses: checked as restore checks it (RestoreSession.extractFile).
                    let plist = RestoreSession.devicePlist(path)
                    var plistBytes: [UInt8]? = plist == nil ? nil : []
                    if plist != nil && member.size > DevicePlist.maxBytes {
                        let problem = RestoreSession.plistProblem(size: UInt64(member.size))
                        report.add("member '\(member.path)': \(problem) (restore refuses it)", limit: problemLimit)
                        plistBytes = nil
                    }
                    // Restore's rules (copyData): holes only in sparse members, blocks in order within the size.
                    var position: Int64 = 0
                    var broken: String?
                    while let block = try reader.readBlock() {
                        if block.offset < position || block.offset + Int64(block.bytes.count) > member.size {
                            broken = broken ?? "data blocks overlap or run past the member's size"
                        } else if block.offset > position {
                            try hashZeros(UInt64(block.offset - position), into: digest, interruption)
                        }
                        if plistBytes != nil && broken == nil {
                            plistBytes!.append(contentsOf: repeatElement(0, count: Int(block.offset - position)))
                            plistBytes!.append(contentsOf: block.bytes)
                        }
                        digest.update(block.bytes)
                        position = block.offset + Int64(block.bytes.count)
                    }
                    if position < member.size {
                        if member.isSparse {
                            try hashZeros(UInt64(member.size - position), into: digest, interruption)
                        } else {
                            broken = broken ?? "\(member.size - position) bytes of data missing"
                        }
                    }
                    if let broken {
                        report.add("member '\(member.path)': \(broken) (restore refuses it)", limit: problemLimit)
                    } else if let plist, var bytes = plistBytes {
                        bytes.append(contentsOf: repeatElement(0, count: Int(max(0, member.size) - position)))
                        if let problem = RestoreSession.plistProblem(plist, bytes, member: member) {
                            report.add("member '\(member.path)': \(problem) (restore refuses it)", limit: problemLimit)
                        }
                    }
                    try log.append(path: path.bytes, size: UInt64(max(0, member.size)), digest: digest.finalize())
                case .directory:
                    if !path.isRoot {
                        observed.directories += 1
                        report.directories += 1
                    }
                case .symlink:
                    observed.symlinks += 1
                    report.symlinks += 1
                case .hardLink:
                    observed.hardlinks += 1
                    report.hardlinks += 1
                    if try member.size != 0 || reader.readBlock() != nil {
                        report.add(
                            "member '\(member.path)': a hard link carrying data (restore refuses it)",
                            limit: problemLimit)
                        try reader.skipData()
                    }
                default:
                    try reader.skipData()
                }
            }
            if manifestSeen, let pax = reader.alterationProblem {
                report.add(pax, limit: problemLimit)
            }
            if !manifestSeen {
                report.add(
                    "the archive has no devicectl manifest (\(Manifest.memberName)): nothing to verify against",
                    limit: problemLimit)
            }
        } catch let error as ArchiveReaderError {
            report.add(error, limit: problemLimit)
        }
        report.format = reader.formatName
        report.filters = reader.filterNames
        report.archiveBytes = reader.inputBytes
        return report
    }

    /// The member checks restore makes before creating anything (those that need no disk state).
    private static func check(
        _ member: ArchiveReader.Member, _ path: MemberPath, into report: inout VerifyReport, limit: Int
    ) {
        let name = member.path
        if let problem = RestoreSession.devicePlistKindProblem(member, path) {
            report.add("member '\(name)': \(problem) (restore refuses it)", limit: limit)
        }
        if let problem = RestoreSession.xattrProblem(member) {
            report.add("member '\(name)': \(problem) (restore refuses it)", limit: limit)
        }
        if path.top.starts(with: RestoreSession.reservedPrefix) {
            report.add(
                "member '\(name)': the name is reserved for restore staging directories (restore refuses it)",
                limit: limit)
        }
        switch member.kind {
        case .regular, .directory:
            if path.isRoot && member.kind != .directory {
                report.add(
                    "member '\(name)': the archive root entry is a \(member.kind.name) (restore refuses it)",
                    limit: limit)
            }
        case .symlink:
            do {
                try path.checkSymlinkTarget(member.linkBytes ?? [], deviceLocal: RestoreSession.deviceLocal)
            } catch {
                report.add(
                    "member '\(name)': \(error) ('\(member.linkTarget ?? "")') (restore refuses it)", limit: limit)
            }
        case .hardLink:
            do {
                _ = try MemberPath(member.linkBytes ?? [])
            } catch {
                report.add(
                    "member '\(name)': hard link target '\(member.linkTarget ?? "")': \(error) (restore refuses it)",
                    limit: limit)
            }
        default:
            report.add("member '\(name)': a \(member.kind.name) (restore refuses it)", limit: limit)
        }
    }

    /// Hashes a sparse hole as zeros, checking for SIGINT/SIGTERM as it goes (a hole can be huge).
    private static func hashZeros(
        _ count: UInt64, into digest: SHA256Digest, _ interruption: @Sendable () -> Int32?
    ) throws {
        let zeros = [UInt8](repeating: 0, count: 64 * 1024)
        var remaining = count
        while remaining > 0 {
            if let signal = interruption() { throw ArchiveReaderError.interrupted(signal: signal) }
            let chunk = Int(min(remaining, UInt64(zeros.count)))
            zeros.withUnsafeBytes { digest.update(UnsafeRawBufferPointer(rebasing: $0[0..<chunk])) }
            remaining -= UInt64(chunk)
        }
    }
}
