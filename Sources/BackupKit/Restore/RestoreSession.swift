// RestoreSession: one restore in progress: reads every member into the staging tree and checks the manifest.
import DeviceKit
import Foundation
import Glibc
import SystemKit
import TarKit

/// Reads the archive once, building the staging tree and the digest log, then checks the manifest.
final class RestoreSession {
    /// The backup being read (the format source: the tar reader).
    let reader: any FormatSource
    let staging: StagingDirectory
    let tree: StagingTree
    /// Writes file data and metadata on a second thread (created in `extractAll`).
    private(set) var pipeline: StagingPipeline?
    let options: RestoreOptions
    /// What the manifest's check compares; nil for a format that carries no manifest (MobileSync).
    let digests: RestoreDigests?
    /// Bytes of file data the restore may still write.
    private(set) var byteBudget: UInt64
    let processUmask: mode_t
    let ownership: Bool
    /// Who new entries belong to; nil when the staging directory is setgid (ROOT was), so groups are inherited.
    let creator: StagingOwner?
    var observed = ManifestCheck.Observed()
    var report = RestoreReport()
    var warnings = RestoreWarnings()
    private(set) var outcome: ManifestCheck.Outcome?
    /// The target device's flagged paths (`TargetExclusions`), and the members skipped below each.
    var targetExclusions = TargetExclusions.none
    private(set) var skippedByTarget: [UInt64] = []
    private var manifestSeen = false
    /// The staged tree's set-up, started beside the manifest check once its header was read (`TreeSetUpThread`).
    private var setUp: TreeSetUpThread?
    /// Whether `prepareTree` ran (beside the manifest check): `finish` then only moves the tree into place.
    private(set) var treePrepared = false
    private let started = MonotonicClock.seconds()

    static let deviceLocal = Array(DeviceLayout.deviceLocal.utf8)
    static let manifestName = Array(Manifest.memberName.utf8)
    static let reservedPrefix = Array(StagingDirectory.prefix.utf8)

    init(reader: any FormatSource, staging: StagingDirectory, options: RestoreOptions) throws {
        self.reader = reader
        self.staging = staging
        self.options = options
        var space = statvfs()
        try SystemError.check("fstatvfs", path: staging.rootPath) { fstatvfs(staging.directory.rawValue, &space) }
        let freeBytes = UInt64(space.f_bavail) * UInt64(space.f_frsize)
        let available = freeBytes > options.reserveBytes ? freeBytes - options.reserveBytes : 0
        byteBudget = min(options.maxBytes ?? .max, available)
        let freeInodes = UInt64(space.f_favail)
        let inodeLimit =
            space.f_files == 0
            ? UInt64.max : (freeInodes > options.reserveInodes ? freeInodes - options.reserveInodes : 0)
        tree = StagingTree(root: staging.directory, objectLimit: inodeLimit)
        // The reader refuses file data beyond the budget at the member's header, and a stream far beyond it.
        reader.limit = ExpansionLimit(dataBytes: byteBudget)
        digests = reader.carriesManifest ? try RestoreDigests(spillDirectory: staging.directory) : nil
        processUmask = RestoreSession.currentUmask()
        let stagingStatus = try staging.directory.status()
        creator =
            stagingStatus.mode & UInt32(S_ISGID) == 0 ? StagingOwner(uid: geteuid(), gid: getegid()) : nil
        ownership = geteuid() == 0
    }

    // MARK: - Members

    /// Reads every member. Throws on the first refused member, I/O error or interruption; the writer thread
    /// has stopped when this returns or throws.
    func extractAll() throws {
        let pipeline = try StagingPipeline(creation: options.fileCreation, digestLog: digests?.log)
        self.pipeline = pipeline
        do {
            try readMembers(into: pipeline)
            try pipeline.finish()
        } catch {
            let failure = pipeline.stop() ?? error
            _ = setUp.take()?.join()  // ended before the staged tree is removed
            throw failure
        }
        let prepared = setUp.take()?.join()
        // The manifest's problems first, as when the set-up came after the check.
        try checkOutcome()
        if let prepared {
            report.apps = try prepared.get()
            treePrepared = true
        }
    }

    private func readMembers(into pipeline: StagingPipeline) throws {
        while let member = try reader.next() {
            try checkInterruption()
            guard !manifestSeen else {
                throw RestoreError.refusedMember(
                    member.path, reason: "a member after the manifest (the manifest must be the last member)")
            }
            let path: MemberPath
            do {
                path = try MemberPath(member.pathBytes)
            } catch {
                throw RestoreError.refusedMember(member.path, reason: error.description, cause: RestoreCause(error))
            }
            if path.bytes == RestoreSession.manifestName {
                if let refusal = MemberRules.manifestRefusal(member) {
                    throw RestoreError.refusedMember(member.path, reason: refusal)
                }
                try readManifest()
                manifestSeen = true
                continue
            }
            digests?.members.add(member, path: path.bytes)
            try apply(member, path, pipeline)
            if let progress = options.progress {
                progress(
                    ReadProgress(files: observed.counts.files, bytes: observed.counts.bytes, of: reader, since: started))
            }
        }
    }

    /// With a manifest: every problem found fails the restore. Without: a warning.
    private func checkOutcome() throws {
        if manifestSeen {
            guard let outcome else { return }
            var problems = outcome.problems
            var count = outcome.problemCount
            if let pax = reader.alterationProblem {
                problems.append(pax)
                count += 1
            }
            if !problems.isEmpty {
                throw RestoreError.verificationFailed(Array(problems.prefix(20)), more: count - min(20, problems.count))
            }
            report.verified = true
            report.metadataVerified = outcome.checkedMembers
            report.sourceUDID = outcome.header.source.udid
            report.engine = outcome.header.appliedEngine
        } else if let plan = reader.restorePlan {
            // A MobileSync backup: no digests to check, but every row's record and content file was (its size, and
            // an encrypted file's padding).
            report.format = "mobilesync"
            report.sourceUDID = plan.header.source.udid
            report.notPlaced = plan.notPlaced.sorted { $0.key < $1.key }.map {
                RestoreNotPlacedDomain(domain: $0.key, entries: $0.value)
            }
            warnings.source = plan.warnings
        } else {
            warnings.noManifest = true
        }
    }

    /// Stages one member (anything but the manifest) after `MemberRules` accepted its header.
    private func apply(_ member: ArchiveReader.Member, _ path: MemberPath, _ pipeline: StagingPipeline) throws {
        if let refusal = MemberRules.refusal(member, path) {
            throw RestoreError.refusedMember(member.path, reason: refusal)
        }
        if path.isRoot { return }  // ROOT keeps its own metadata
        let deviceLocal = path.top.elementsEqual(RestoreSession.deviceLocal)
        if !targetExclusions.flagged.isEmpty, try skipFlaggedOnTarget(member, path, pipeline) { return }
        switch member.kind {
        case .regular:
            observed.counts.files += 1
            observed.counts.bytes &+= UInt64(max(0, member.size))
        case .directory: observed.counts.directories += 1
        case .symlink: observed.counts.symlinks += 1
        case .hardLink: observed.counts.hardlinks += 1
        case .characterDevice, .blockDevice, .fifo, .socket, .unknown: return  // refused by MemberRules
        }
        if deviceLocal {
            // Checked (a file's data hashed for the manifest), never applied.
            warnings.deviceLocal += 1
            if member.kind == .regular { try hashOnly(member, path, pipeline) }
            return
        }
        switch member.kind {
        case .regular: try extractFile(member, path, pipeline)
        case .directory: try stageDirectory(member, path)
        case .symlink: try stageSymlink(member, path)
        case .hardLink:
            guard member.size == 0, try reader.readBlock() == nil else {
                throw RestoreError.refusedMember(member.path, reason: "a hard link carrying data")
            }
            // MemberRules checked the target.
            let target = try MemberPath(member.linkBytes ?? [])
            try pipeline.waitForCreatedFiles()
            try tree.createHardLink(path, to: target)
            report.counts.hardlinks += 1
        case .characterDevice, .blockDevice, .fifo, .socket, .unknown: return
        }
        if let restored = options.restored { restored(path, member.kind) }
    }

    private func stageDirectory(_ member: ArchiveReader.Member, _ path: MemberPath) throws {
        let xattrs = try userXattrs(member, path, symlink: false)
        try tree.createDirectory(path, permissions: permissions(member), mtime: mtime(member))
        if let owner = try owner(member) { try tree.changeOwner(path, uid: owner.uid, gid: owner.gid) }
        if !xattrs.isEmpty {
            let fd = try tree.openDirectory(path)
            try StagingTree.setXattrs(xattrs, on: fd.rawValue, path: path.text)
            try fd.close()
        }
        report.counts.directories += 1
    }

    private func stageSymlink(_ member: ArchiveReader.Member, _ path: MemberPath) throws {
        _ = try userXattrs(member, path, symlink: true)
        try tree.createSymlink(path, target: member.linkBytes ?? [])
        if let owner = try owner(member) { try tree.changeOwner(path, uid: owner.uid, gid: owner.gid) }
        if let mtime = mtime(member) { try tree.setModificationTime(path, mtime) }
        report.counts.symlinks += 1
    }

    /// Skips `member` when it lies at or below a path the target device flags excluded from backup (or is a hard
    /// link to a file skipped so): checked by `MemberRules` as any member, a file hashed for the manifest, nothing created.
    private func skipFlaggedOnTarget(
        _ member: ArchiveReader.Member, _ path: MemberPath, _ pipeline: StagingPipeline
    ) throws -> Bool {
        var index = targetExclusions.covering(path.bytes)
        if index == nil, member.kind == .hardLink, let target = member.linkBytes {
            index = targetExclusions.covering(target)
        }
        guard let index else { return false }
        switch member.kind {
        case .regular:
            observed.counts.files += 1
            observed.counts.bytes &+= UInt64(max(0, member.size))
            try hashOnly(member, path, pipeline)
        case .directory:
            observed.counts.directories += 1
        case .symlink:
            observed.counts.symlinks += 1  // its target was checked by MemberRules
        case .hardLink:
            observed.counts.hardlinks += 1
            guard member.size == 0, try reader.readBlock() == nil else {
                throw RestoreError.refusedMember(member.path, reason: "a hard link carrying data")
            }
        case .characterDevice, .blockDevice, .fifo, .socket, .unknown:
            return false  // refused as anywhere else
        }
        if skippedByTarget.isEmpty { skippedByTarget = Array(repeating: 0, count: targetExclusions.flagged.count) }
        skippedByTarget[index] += 1
        return true
    }

    /// What the target's flags kept from being restored, for the report.
    var skippedPaths: [RestoreSkippedPath] {
        targetExclusions.flagged.enumerated().compactMap { index, flag in
            let entries = index < skippedByTarget.count ? skippedByTarget[index] : 0
            return entries == 0 ? nil : RestoreSkippedPath(path: flag.text, reason: flag.reason, entries: entries)
        }
    }

    // MARK: - Manifest

    private func readManifest() throws {
        // Only a format that carries a manifest has one (its source refuses the name otherwise).
        guard let digests else {
            throw RestoreError.refusedMember(Manifest.memberName, reason: "a manifest in a format that has none")
        }
        observed.memberCount = digests.members.count
        observed.memberDigest = digests.members.hex
        try pipeline?.flush()  // every file's digest is in the log once the writer applied what was queued
        let check = try ManifestCheck(log: try digests.log.reader(), observed: observed)
        while let block = try reader.readBlock() {
            try checkInterruption()
            try check.feed(block.bytes)
            // Every member is staged and the header validated: the tree's set-up goes on beside the rest of the
            // check (not when pinned: every call that names a path stays on this thread, in order).
            if setUp == nil, options.fileCreation == .writer, reader.restorePlan == nil, let header = check.header {
                setUp = try TreeSetUpThread(session: self, header: header)
            }
        }
        outcome = try check.finish()
        try digests.log.release()  // while the tree's set-up may still run beside this thread
    }

    // MARK: - Helpers

    /// The device plist restore reads back that `path` names, if any (most names end otherwise: no String made).
    static func devicePlist(_ path: MemberPath) -> DevicePlist? {
        guard path.bytes.count > 6, path.bytes.suffix(6).elementsEqual(plistSuffix) else { return nil }
        return DevicePlist(relativePath: path.text)
    }

    private static let plistSuffix = Array(".plist".utf8)

    func checkInterruption() throws(RestoreError) {
        if let signal = options.interruption() { throw RestoreError.interrupted(signal: signal) }
    }

    /// Reserves `size` bytes of the budget for `member`.
    func reserve(_ size: UInt64, for member: ArchiveReader.Member) throws(RestoreError) {
        guard size <= byteBudget else {
            throw RestoreError.noSpace(
                "member '\(member.path)' needs \(size) bytes but only \(byteBudget) more may be written "
                    + "(free space on ROOT's file system, or the limit)")
        }
        byteBudget -= size
    }

    /// The member's permission bits with setuid and setgid removed.
    func permissions(_ member: ArchiveReader.Member) -> mode_t {
        mode_t(member.permissions & 0o1777)
    }

    func mtime(_ member: ArchiveReader.Member) -> timespec? {
        guard member.hasMtime, (0..<1_000_000_000).contains(member.mtimeNanoseconds) else { return nil }
        return timespec(tv_sec: Int(member.mtimeSeconds), tv_nsec: Int(member.mtimeNanoseconds))
    }

    /// The member's numeric owner to apply when running as root (nil otherwise: ownership is only restored as
    /// root). Nil too when it is already the creator's: unless ROOT is setgid, nothing in the staging directory
    /// is, so a new entry belongs to the effective uid and gid and the chown would change nothing.
    func owner(_ member: ArchiveReader.Member) throws(RestoreError) -> StagingOwner? {
        guard ownership else { return nil }
        for id in [member.uid, member.gid] where UInt32(exactly: id) == nil || id == Int64(UInt32.max) {
            throw RestoreError.refusedMember(member.path, reason: "owner id \(id) is out of range")
        }
        if let creator, member.uid == Int64(creator.uid), member.gid == Int64(creator.gid) { return nil }
        return StagingOwner(uid: uid_t(member.uid), gid: gid_t(member.gid))
    }

    /// The process umask, read without changing it (other threads may be creating files).
    static func currentUmask() -> mode_t {
        let umaskField = Array("Umask:".utf8)
        guard let status = try? FileDescriptor.open("/proc/self/status", flags: O_RDONLY).readAll() else {
            return 0o022
        }
        // Bytes, not Foundation's trimming: the first use of a `CharacterSet` was 0.2 ms of a restore's start.
        for line in status.split(separator: UInt8(ascii: "\n")) where line.starts(with: umaskField) {
            let digits = line.dropFirst(umaskField.count).drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
            guard !digits.isEmpty, digits.count <= 6, digits.allSatisfy({ $0 &- UInt8(ascii: "0") < 8 }) else { break }
            return digits.reduce(0) { $0 << 3 | mode_t($1 &- UInt8(ascii: "0")) }
        }
        return 0o022
    }
}
