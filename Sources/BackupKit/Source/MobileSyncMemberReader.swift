// MobileSyncMemberReader: a MobileSync backup read as restore's members: rows placed in ROOT, data decrypted.
import DeviceKit
import Foundation
import Glibc
import MobileSyncKit
import PropertyListKit
import SystemKit
import TarKit

/// A MobileSync backup (`MobileSyncSource`) as a `FormatSource`, so a restore stages it exactly as a tar:
/// `MemberRules`, the staging tree, the journal and the move into place are the same. Rows come in (domain, path)
/// order (a directory before what it holds); each is checked (`MobileSyncRowRules`, and its parent directory's row
/// came first) and placed (`DomainRoot`): an app domain's rows in a container under a new UUID (the domain's root
/// row its directory), a `/var/mobile` domain's under ROOT, other domains counted and left out. A file's data is
/// its content file (`xx/<fileID>`, opened beneath the backup through no symlink), decrypted as it is read when the
/// backup is encrypted (its size known beforehand from its last block); a symlink's absolute device target is
/// rewritten relative when it names a place under `/var/mobile` (`linkTarget`), and skipped with a warning
/// otherwise. After the last row, `restorePlan` says which containers to adopt and which apps to reinstall.
final class MobileSyncMemberReader: FormatSource {
    let name: String
    var limit: ExpansionLimit
    private(set) var inputBytes: UInt64 = 0
    var alterationProblem: String? { nil }
    let formatName = "MobileSync"
    let filterNames: [String] = []
    /// Set after the last row.
    private(set) var restorePlan: RestorePlan?
    /// A MobileSync backup holds no devicectl manifest (the one devicectl keeps beside its rows is not a member).
    var carriesManifest: Bool { false }

    private let source: MobileSyncSource
    /// The rows, read and checked ahead on a worker thread.
    private let rows: MobileSyncRowPrefetch
    private let interruption: () -> Int32?
    /// Members made ready ahead of the one `next()` returns (a container's directory before its first row).
    private var pending: [(ArchiveReader.Member, Content)] = []
    private var content = Content.none
    /// The open content file of the one `.file` content (the current member's, or the pending one's: a file is
    /// opened only once the member before it was done with, so there is one at a time). Its path is empty (a
    /// literal: nothing is built or allocated a file); messages name it by its row.
    private var contentFile: FileDescriptor?
    /// Bytes of the current member's data handed out so far (the next block's offset).
    private var position: Int64 = 0
    /// The plan's containers in the order made.
    private var containers: [RestorePlan.StagedContainer] = []
    private var notPlaced: [String: UInt64] = [:]
    /// The domain of the rows being read.
    private var domain = DomainState(name: "")
    private let contentNeeded: ((String) -> Bool)?
    /// The domain and path of the row the members `next()` returns come from (verify names a member by it: the
    /// member's path holds a container's new UUID).
    private(set) var currentRow: (domain: String, path: String) = ("", "")

    /// What the reader knows of the domain whose rows it reads.
    private struct DomainState {
        let name: String
        let placement: DomainRoot
        /// Its directories' paths so far (a row's parent must be one: rows come sorted, so it came before).
        var directories: Set<String> = []
        /// Its container's directory in ROOT, once made (app domains).
        var container: String?

        init(name: String) {
            self.name = name
            placement = DomainRoot.of(name)
        }
    }
    private var skippedLinks = Findings(one: "symbolic link not restored", many: "symbolic links not restored")
    private var missingContent = Findings(
        one: "file whose content file is missing (not restored)", many: "files whose content file is missing (not restored)")
    private var sizeMismatches = Findings(
        one: "file whose size differs from its record's Size", many: "files whose size differs from their record's Size")
    /// The directories of `/var/mobile` domains placed so far: two domains may hold one (`Media` is in MediaDomain
    /// and CameraRollDomain; HealthDomain's root is HomeDomain's `Library`), and the first one's row makes it.
    private var mobileDirectories: Set<String> = []
    private var dataTotal: UInt64 = 0
    /// Rows taken so far, of `rowCount` (the progress display's position).
    private var rowsRead: UInt64 = 0
    private let rowCount: UInt64
    /// The one decrypting context, restarted for each file of an encrypted backup, and the class keys' unwrapper
    /// for a key the prefetch worker did not unwrap (to say why).
    private var decryptor: FileCipher?
    private var unwrapper: ClassKeyUnwrapper?
    private let owner = (uid: Int64(geteuid()), gid: Int64(getegid()))
    private let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)
    private let plain = UnsafeMutableRawBufferPointer.allocate(byteCount: (256 << 10) + 32, alignment: 16)

    /// The data of the current member.
    private enum Content {
        case none
        /// A content file (open as `contentFile`): `remaining` bytes of it still to read; with `cipher`, decrypted on
        /// the way. `row` names it in a message.
        case file(remaining: UInt64, cipher: FileCipher?, row: RowName)
        /// A small encrypted file, read and decrypted whole when it was opened: its `count` bytes are in `plain`.
        case decrypted(count: Int)
    }

    /// A row's domain, path and fileID, made into text for a message only.
    private struct RowName {
        let domain: String
        let path: String
        let fileID: String
        var shown: String { MobileSyncVerification.display(domain, path) }
        var contentName: String { "\(fileID.prefix(2))/\(fileID)" }
    }

    /// The first few of a kind of finding, and how many there were.
    private struct Findings {
        let one: String
        let many: String
        var count = 0
        var first: [String] = []

        mutating func add(_ text: String) {
            count += 1
            if first.count < 5 { first.append(text) }
        }

        var message: String? {
            guard count > 0 else { return nil }
            return "\(count) \(count == 1 ? one : many): " + first.joined(separator: "; ") + (count > first.count ? "; ..." : "")
        }
    }

    /// Opens `source`'s rows as members. `contentNeeded` (verify's) says which files' content files are opened and
    /// read, by their path in ROOT; the others come as members of no data (verify checked every content file on the
    /// rows). Nil (a restore): every one.
    init(
        source: MobileSyncSource, limit: ExpansionLimit, interruption: @escaping () -> Int32?,
        contentNeeded: ((String) -> Bool)? = nil
    ) throws {
        self.contentNeeded = contentNeeded
        self.source = source
        self.limit = limit
        self.interruption = interruption
        name = source.path
        if source.info.hasStatus, source.info.snapshotState != "finished" {
            throw MobileSyncReadError.refusedRow(
                path: source.path, entry: "",
                reason: "is not finished (Status.plist SnapshotState "
                    + "\(source.info.snapshotState.map { "'\(DeviceValueError.display($0))'" } ?? "missing"))")
        }
        rowCount = try source.rowCount()  // before the prefetch worker takes the connection
        do {
            rows = try MobileSyncRowPrefetch(cursor: try source.database.rows(), keys: source.classKeys)
        } catch let error as MobileSyncError {
            throw MobileSyncReadError.database(path: source.path, error)
        }
    }

    deinit {
        closeContent()
        buffer.deallocate()
        plain.deallocate()
    }

    func close() throws {
        rows.stop()
        closeContent()
    }

    private func closeContent() {
        if case .file = content { contentFile = nil }
        content = .none
    }

    // MARK: - Members

    func next() throws -> ArchiveReader.Member? {
        closeContent()
        while pending.isEmpty {
            if let signal = interruption() { throw RestoreError.interrupted(signal: signal) }
            let row: MobileSyncRowPrefetch.CheckedRow?
            do {
                row = try rows.next()
            } catch {
                throw MobileSyncReadError.database(path: source.path, error)
            }
            guard let row else {
                if restorePlan == nil { restorePlan = try plan() }
                return nil
            }
            rowsRead += 1
            try place(row)
        }
        let (member, data) = pending.removeFirst()
        content = data
        position = 0
        return member
    }

    var progressPosition: (done: UInt64, total: UInt64?) { (rowsRead, rowCount) }

    func readBlock() throws -> ArchiveReader.DataBlock? {
        if case .decrypted(let count) = content {
            content = .none
            return count == 0 ? nil : block(plain, count)
        }
        guard case .file(let remaining, let cipher, let row) = content else { return nil }
        let descriptor = contentFile?.rawValue ?? -1
        var left = remaining
        while true {
            if left == 0 {
                guard let cipher else { return nil }
                guard let last = cipher.finish(into: plain) else {
                    throw RestoreError.refusedMember(
                        row.shown,
                        reason: "its content file \(row.contentName) does not decrypt (bad padding: damaged, or another key)")
                }
                content = .file(remaining: 0, cipher: nil, row: row)
                return last == 0 ? nil : block(plain, last)
            }
            let n = read(descriptor, buffer.baseAddress, Int(min(left, UInt64(buffer.count))))
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else {
                throw RestoreError.system(SystemError("read", path: "\(source.path)/\(row.contentName)"))
            }
            guard n > 0 else {
                throw RestoreError.refusedMember(
                    row.shown, reason: "its content file \(row.contentName) ended early (changed while read)")
            }
            left -= UInt64(n)
            inputBytes += UInt64(n)
            content = .file(remaining: left, cipher: cipher, row: row)
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            guard let cipher else { return block(buffer, n) }
            let produced = try cipher.update(bytes, into: plain)
            if produced > 0 { return block(plain, produced) }
        }
    }

    /// The first `count` bytes of `storage` as the next block of the member's data.
    private func block(_ storage: UnsafeMutableRawBufferPointer, _ count: Int) -> ArchiveReader.DataBlock {
        defer { position += Int64(count) }
        return ArchiveReader.DataBlock(offset: position, bytes: UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    func skipData() throws {
        closeContent()
    }

    /// Checks one row and queues the members it makes. Rows come sorted by domain, so what depends on the domain
    /// alone (its placement, its directories so far) is worked out once a domain; `shown` (the escaped domain and
    /// path) only for a message.
    private func place(_ checked: MobileSyncRowPrefetch.CheckedRow) throws {
        let row = checked.row
        currentRow = (row.domain, row.relativePath)  // every member queued below comes from this row
        func shown() -> String { MobileSyncVerification.display(row.domain, row.relativePath) }
        let record: BackupFileRecord
        switch checked.record {
        case .success(let checked): record = checked
        case .failure(let error):
            throw RestoreError.refusedMember(shown(), reason: error.reason, cause: RestoreCause(error))
        }
        if row.domain != domain.name { domain = DomainState(name: row.domain) }
        let placement = domain.placement
        if placement == .notPlaced {
            countNotPlaced(DomainRoot.family(of: row.domain))
            return
        }
        if !row.relativePath.isEmpty {
            let parent = row.relativePath.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(row.relativePath[..<$0]) } ?? ""
            guard domain.directories.contains(parent) else {
                throw RestoreError.refusedMember(
                    shown(), reason: "its directory \(MobileSyncVerification.display(row.domain, parent)) has no row")
            }
        }
        if record.kind == .directory { domain.directories.insert(row.relativePath) }
        let path: String
        switch placement {
        case .notPlaced:
            return
        case .mobile(let prefix):
            if prefix.isEmpty, row.relativePath.isEmpty { return }  // ROOT keeps its own metadata
            if prefix.isEmpty, row.relativePath == "Containers" || row.relativePath.hasPrefix("Containers/") {
                // Containers are app domains; one in HomeDomain would stand in for theirs.
                countNotPlaced("\(row.domain) Containers/")
                return
            }
            if prefix.isEmpty, row.relativePath == Manifest.memberName {
                throw RestoreError.refusedMember(shown(), reason: "a name devicectl reserves for its manifest")
            }
            path = prefix.isEmpty ? row.relativePath : row.relativePath.isEmpty ? prefix : prefix + "/" + row.relativePath
            if record.kind == .directory, !mobileDirectories.insert(path).inserted { return }
        case .container(let kind, let identifier):
            let directory = try container(for: row, kind: kind, identifier: identifier, record: record, shown: shown)
            if row.relativePath.isEmpty { return }  // the container's directory, queued from this row
            // containermanagerd's metadata is the restore's to write (`RestorePlan`), never the backup's.
            if row.relativePath == DeviceLayout.containerMetadata { return }
            path = directory + "/" + row.relativePath
        }
        switch record.kind {
        case .directory:
            pending.append((member(path, .directory, record), .none))
        case .symlink:
            var own: (ContainerKind, String)?
            if case .container(let kind, _) = placement, let directory = domain.container { own = (kind, directory) }
            guard let target = linkTarget(record.target ?? "", at: path, container: own) else {
                skippedLinks.add("\(shown()) -> \(DeviceValueError.display(record.target ?? ""))")
                return
            }
            var link = member(path, .symlink, record)
            link.linkBytes = Array(target.utf8)
            pending.append((link, .none))
        case .file:
            guard let made = try file(row, record, path: path, key: checked.fileKey) else { return }
            pending.append(made)
        }
    }

    /// Counts a row left out under `family`; past `notPlacedFamilies` families (a hostile backup can name a million),
    /// under "other domains".
    private func countNotPlaced(_ family: String) {
        if notPlaced[family] == nil, notPlaced.count >= Self.notPlacedFamilies {
            notPlaced["other domains", default: 0] += 1
        } else {
            notPlaced[family, default: 0] += 1
        }
    }

    /// The domain families the report names one by one.
    static let notPlacedFamilies = 64

    /// The directory of the container for `row`'s domain, queued (a new UUID) at the domain's first row, its root.
    private func container(
        for row: ManifestDatabaseReader.Row, kind: ContainerKind, identifier: String, record: BackupFileRecord,
        shown: () -> String
    ) throws -> String {
        if let known = domain.container { return known }
        do {
            try DeviceValue.identifier(identifier, field: "domain")
        } catch {
            throw RestoreError.refusedMember(
                shown(), reason: "the domain's identifier is not one iOS allows (\(error))", cause: RestoreCause(error))
        }
        let uuid = UUID().uuidString
        let directory = "\(kind.directory)/\(uuid)"
        domain.container = directory
        let suffix = ".NudgeWidget"
        let parent = kind == .plugin && identifier.hasSuffix(suffix) ? String(identifier.dropLast(suffix.count)) : nil
        containers.append(.init(kind: kind, identifier: identifier, uuid: uuid, parent: parent))
        // Rows come sorted and each needs its parent's: the first row of a domain is its root.
        guard record.kind == .directory else {
            throw RestoreError.refusedMember(shown(), reason: "a domain's root that is not a directory")
        }
        pending.append((member(directory, .directory, record), .none))
        return directory
    }

    /// A file's member and its content, opened and sized (an encrypted file's plaintext length comes from its last
    /// block), or nil when its content file is missing. Real backups have both of these, and neither fails the
    /// restore (reference §2.4, §5.8): a file whose device reported an I/O error during the backup has a row but no
    /// content file (skipped with a warning), and a live database's content differs in size from its row's `Size`
    /// (restored as it is, with a warning). A content file that is there but is no regular file, cannot be opened
    /// or does not decrypt fails it.
    private func file(_ row: ManifestDatabaseReader.Row, _ record: BackupFileRecord, path: String, key: [UInt8]?) throws
        -> (ArchiveReader.Member, Content)?
    {
        if let contentNeeded, !contentNeeded(path) {
            var member = member(path, .regular, record)
            member.xattrs = record.extendedAttributes.map { ("user." + $0.0, $0.1) }
            return (member, .none)
        }
        let name = RowName(domain: row.domain, path: row.relativePath, fileID: row.fileID)
        let fd = source.openContent(row.fileID)
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT {
                missingContent.add(name.shown)
                return nil
            }
            throw RestoreError.refusedMember(
                name.shown,
                reason: "its content file \(name.contentName) cannot be opened (\(SystemError.phrase(code)))")
        }
        // Closed when this returns, unless it becomes the member's `contentFile`.
        let opened = FileDescriptor(rawValue: fd, path: "")
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw RestoreError.refusedMember(
                name.shown, reason: "its content file \(name.contentName) is not a regular file")
        }
        let stored = UInt64(status.st_size)
        var size = stored
        var cipher: FileCipher?
        var whole = false
        if let keys = source.classKeys {
            if stored <= UInt64(buffer.count) {
                size = try decryptWhole(record, keys: keys, key: key, fd: fd, stored: stored, name: name)
                whole = true
            } else {
                cipher = try decipher(record, keys: keys, key: key, fd: fd, stored: stored, name: name, size: &size)
            }
            if size != record.size {
                sizeMismatches.add("\(name.shown) (\(size) bytes, the record says \(record.size))")
            }
        } else if stored != record.size {
            sizeMismatches.add("\(name.shown) (\(stored) bytes, the record says \(record.size))")
        }
        dataTotal &+= size
        guard dataTotal <= limit.dataBytes else {
            throw ArchiveReaderError.dataTooLarge(member: path, total: dataTotal, limit: limit.dataBytes)
        }
        var member = member(path, .regular, record)
        member.size = Int64(size)
        if !record.extendedAttributes.isEmpty {
            member.xattrs = record.extendedAttributes.map { ("user." + $0.0, $0.1) }
        }
        if whole {
            _ = consume opened  // closed now: read whole
            return (member, .decrypted(count: Int(size)))
        }
        contentFile = consume opened
        return (member, .file(remaining: stored, cipher: cipher, row: name))
    }

    /// The cipher for an encrypted file, after its key unwrapped with its class's key and its length was told from
    /// its last block (`size`).
    private func decipher(
        _ record: BackupFileRecord, keys: [UInt32: [UInt8]], key unwrapped: [UInt8]?, fd: Int32, stored: UInt64,
        name: RowName, size: inout UInt64
    ) throws -> FileCipher {
        var key = try unwrapped ?? fileKey(record, keys: keys, name: name)
        defer { BackupEncryption.clear(&key) }
        let cipher = try decryptingCipher(key, name: name)
        var tail = [UInt8](repeating: 0, count: stored == 16 ? 16 : 32)
        let offset = stored >= UInt64(tail.count) ? off_t(stored) - off_t(tail.count) : 0
        guard stored >= 16, pread(fd, &tail, tail.count, offset) == tail.count,
            let length = cipher.plaintextLength(ciphertextLength: stored, tail: tail, key: key)
        else { throw RestoreError.refusedMember(name.shown, reason: Self.undecryptable) }
        size = length
        do {
            try cipher.restart(key: key)
        } catch {
            throw RestoreError.refusedMember(name.shown, reason: error.description, cause: RestoreCause(error))
        }
        return cipher
    }

    /// A small encrypted file (up to the read buffer's size) read with one call and decrypted whole into `plain`,
    /// its padding checked; returns the plaintext's length. One cipher start a file instead of two (the last
    /// block's, then the stream's), and one read.
    private func decryptWhole(
        _ record: BackupFileRecord, keys: [UInt32: [UInt8]], key unwrapped: [UInt8]?, fd: Int32, stored: UInt64,
        name: RowName
    ) throws -> UInt64 {
        var key = try unwrapped ?? fileKey(record, keys: keys, name: name)
        defer { BackupEncryption.clear(&key) }
        let cipher = try decryptingCipher(key, name: name)
        let count = Int(stored)
        var done = 0
        while done < count {
            let n = read(fd, buffer.baseAddress! + done, count - done)
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw RestoreError.system(SystemError("read", path: "\(source.path)/\(name.contentName)")) }
            guard n > 0 else {
                throw RestoreError.refusedMember(
                    name.shown, reason: "its content file \(name.contentName) ended early (changed while read)")
            }
            done += n
        }
        inputBytes += stored
        guard count >= 16, count % 16 == 0 else { throw RestoreError.refusedMember(name.shown, reason: Self.undecryptable) }
        let produced: Int
        do {
            try cipher.restart(key: key)
            produced = try cipher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), into: plain)
        } catch {
            throw RestoreError.refusedMember(name.shown, reason: error.description, cause: RestoreCause(error))
        }
        // The last block straight after the rest in `plain` (32 bytes of room past the read buffer's size).
        guard let last = cipher.finish(into: UnsafeMutableRawBufferPointer(rebasing: plain[produced...])) else {
            throw RestoreError.refusedMember(name.shown, reason: Self.undecryptable)
        }
        return UInt64(produced + last)
    }

    static let undecryptable =
        "its content file does not decrypt (not whole blocks or bad padding: damaged, or another key)"

    /// A file's key: its `EncryptionKey` unwrapped with the key of its class, which must be its `ProtectionClass`
    /// (the prefetch worker unwraps it ahead; this says why when it did not).
    private func fileKey(_ record: BackupFileRecord, keys: [UInt32: [UInt8]], name: RowName) throws -> [UInt8] {
        guard let wrapped = record.encryptionKey.flatMap(WrappedKey.init) else {
            throw RestoreError.refusedMember(name.shown, reason: "its record has no 44-byte EncryptionKey")
        }
        if unwrapper == nil { unwrapper = ClassKeyUnwrapper(keys: keys) }
        guard Int(wrapped.protectionClass) == record.protectionClass, let key = unwrapper?.unwrap(wrapped) else {
            throw RestoreError.refusedMember(name.shown, reason: "its key does not unwrap with its protection class's key")
        }
        return key
    }

    /// The one decrypting context (made at the first encrypted file).
    private func decryptingCipher(_ key: [UInt8], name: RowName) throws -> FileCipher {
        if let decryptor { return decryptor }
        do {
            let made = try FileCipher(key: key, encrypting: false)
            decryptor = made
            return made
        } catch {
            throw RestoreError.refusedMember(name.shown, reason: error.description, cause: RestoreCause(error))
        }
    }

    /// A member for `path` with the record's mode and time; owned by whoever restores (a backup's `mobile` is no
    /// user here).
    private func member(_ path: String, _ kind: ArchiveReader.Kind, _ record: BackupFileRecord)
        -> ArchiveReader.Member
    {
        ArchiveReader.Member(
            pathBytes: Array(path.utf8), kind: kind, permissions: record.mode & 0o7777, size: 0,
            mtimeSeconds: record.lastModified, mtimeNanoseconds: 0, uid: owner.uid, gid: owner.gid)
    }

    /// A link target as it will be in ROOT: an absolute device path under `/var/mobile` (or `/private/var/mobile`)
    /// made relative to the link's directory, or a relative target that stays inside ROOT, as it is. A backup keeps
    /// no container UUIDs, so a target in `Containers` is kept only when it is in a container of the link's own
    /// container's class (`container`: its kind and new directory): a sandboxed app reaches no other app's
    /// container of its class, so that one is its own. Nil otherwise (the restore's own check still judges what
    /// is kept).
    func linkTarget(_ target: String, at path: String, container: (ContainerKind, String)?) -> String? {
        if !target.hasPrefix("/") {
            // Relative: kept as it is when it does not climb above ROOT (what a backup writes it as).
            return DomainMap.devicePath(ofLink: target, at: path) == nil ? nil : target
        }
        let rest: Substring
        if target.hasPrefix("/var/mobile/") {
            rest = target.dropFirst("/var/mobile/".count)
        } else if target.hasPrefix("/private/var/mobile/") {
            rest = target.dropFirst("/private/var/mobile/".count)
        } else {
            return nil
        }
        var components = rest.split(separator: "/").map(String.init)
        guard !components.isEmpty, !components.contains(where: { $0 == "." || $0 == ".." }) else { return nil }
        if components[0] == "Containers" {
            guard let (kind, directory) = container else { return nil }
            let classPath = kind.directory.split(separator: "/").map(String.init)
            guard components.count > classPath.count, Array(components[0..<classPath.count]) == classPath else {
                return nil
            }
            components = directory.split(separator: "/").map(String.init) + components[(classPath.count + 1)...]
        }
        // Relative from the link's directory: up to the directory both share, then down.
        let directory = path.split(separator: "/").dropLast().map(String.init)
        var shared = 0
        while shared < min(directory.count, components.count - 1), directory[shared] == components[shared] { shared += 1 }
        let up = String(repeating: "../", count: directory.count - shared)
        return up + components[shared...].joined(separator: "/")
    }

    // MARK: - The plan

    /// What to do once the members are staged: containers to adopt, apps to reinstall, what was left out.
    private func plan() throws -> RestorePlan {
        var warnings: [String] = []
        if let message = skippedLinks.message {
            warnings.append(message + " (a target outside /var/mobile, or in another app's container)")
        }
        if let message = missingContent.message { warnings.append(message) }
        if let message = sizeMismatches.message { warnings.append(message + "; restored as they are") }
        var header = try MobileSyncAppList.header(source: source, containers: containers, warnings: &warnings)
        if let udid = source.info.udid, (try? DeviceValue.identifier(udid, field: "udid", maxBytes: 64)) != nil {
            header.source = Manifest.Source(udid: udid)
        }
        return RestorePlan(containers: containers, header: header, notPlaced: notPlaced, warnings: warnings)
    }
}
