// MobileSyncVerification: `devicectl verify DIR` for a MobileSync backup: the index, every row, every content file.
import DeviceKit
import Glibc
import MobileSyncKit
import SystemKit
import TarKit

/// Checks a MobileSync backup without changing anything in it: the plists are well formed and the snapshot is
/// finished, every row passes `MobileSyncRowRules` (what a restore would refuse), every directory and file has its
/// parent directory's row and its domain's root, every file row has its content file `xx/<fileID>` (a regular
/// file) of the recorded size, and no content file is there that no row names. Entries beside the backup's own
/// are warnings. SIGINT/SIGTERM stop it between rows.
public enum MobileSyncVerification {
    public struct Report: Sendable {
        /// The rows checked, by kind (a MobileSync backup has no hard links).
        public var counts = EntryCounts()
        public var domains: Set<String> = []
        /// The first `shownProblems` problems, each naming the domain and path or the file.
        public var problems: [String] = []
        public var problemCount = 0
        public var warnings: [String] = []
        public var interruptedBy: Int32?
        public var info: BackupInfo?

        public var isValid: Bool { problemCount == 0 && interruptedBy == nil }

        mutating func problem(_ text: String) {
            problemCount += 1
            if problems.count < MobileSyncVerification.shownProblems { problems.append(text) }
        }
    }

    static let shownProblems = 100
    /// The names a backup directory holds besides its `xx` content directories.
    static let ownNames: Set<String> = [
        "Info.plist", "Manifest.plist", "Status.plist", "Manifest.db", MobileSyncSink.manifestName,
    ]

    public static func verify(
        path: String, password: () throws -> [UInt8]? = { nil },
        interruption: @escaping @Sendable () -> Int32? = { ProcessSignals.received },
        progress: ((ReadProgress) -> Void)? = nil
    ) throws -> Report {
        let source = try MobileSyncSource(path: path, password: password)
        // Restore's reading of the rows runs beside the row checks, on a connection of its own.
        let members = try MemberPass(source: MobileSyncSource(sibling: source), interruption: interruption)
        var rows = try RowProgress(source, progress)
        var report = Report()
        report.info = source.info
        checkState(source, &report)
        // Rows come in (domain, path) order, so a directory's row comes before its entries' (a path sorts after
        // its prefix) and a repeated row right after the first: only the directories are remembered.
        var directories: Set<String> = []
        var previous = ""
        var fileRows = 0
        let unwrapper = source.classKeys.map(ClassKeyUnwrapper.init)
        do {
            try source.forEachRow(
                entry: { entry in
                    if let signal = interruption() { throw Interrupted(signal: signal) }
                    defer { rows.row(files: report.counts.files, bytes: report.counts.bytes) }
                    let record = entry.record
                    let name = display(entry.domain, record.relativePath)
                    let key = entry.domain + "\0" + record.relativePath
                    guard key != previous else {
                        report.problem("\(name): listed twice")
                        return
                    }
                    previous = key
                    report.domains.insert(entry.domain)
                    if !record.relativePath.isEmpty {
                        let parent = parent(of: record.relativePath)
                        if !directories.contains(entry.domain + "\0" + parent) {
                            report.problem("\(display(entry.domain, parent)): a directory \(name) needs has no row")
                        }
                    }
                    switch record.kind {
                    case .directory:
                        report.counts.directories += 1
                        directories.insert(key)
                    case .symlink:
                        report.counts.symlinks += 1
                    case .file:
                        report.counts.files += 1
                        report.counts.bytes += record.size
                        fileRows += 1
                        if let keys = unwrapper {
                            switch decryptionProblem(source, entry.fileID, record: record, keys: keys) {
                            case .none: break
                            case .warning(let text): report.warnings.append("\(name): \(text)")
                            case .problem(let text): report.problem("\(name): \(text)")
                            }
                        } else if let problem = contentProblem(source, entry.fileID, size: record.size) {
                            if source.info.isEncrypted, problem.hasPrefix("its content file is") {
                                report.warnings.append("\(name): \(problem)")
                            } else {
                                report.problem("\(name): \(problem)")
                            }
                        }
                    }
                },
                refused: { domain, path, reason in
                    if let signal = interruption() { throw Interrupted(signal: signal) }
                    defer { rows.row(files: report.counts.files, bytes: report.counts.bytes) }
                    report.problem("\(display(domain, path)): \(reason)")
                })
        } catch let interrupted as Interrupted {
            report.interruptedBy = interrupted.signal
            return report
        } catch let error as MobileSyncReadError {
            throw error
        } catch {
            report.problem("\(error)")
        }
        checkDirectory(source, fileRows: fileRows, &report)
        let found = members.finish()
        if report.isValid {
            for problem in found.problems { report.problem(problem) }
            if let signal = found.interruptedBy { report.interruptedBy = signal }
        }
        return report
    }

    /// `checkMembers` on a thread of its own; `finish()` joins it and gives what it found.
    private final class MemberPass: @unchecked Sendable {
        private var thread: WorkerThread?
        /// Used by the thread alone (the report read after the join).
        private let source: MobileSyncSource
        private var found = Report()

        init(source: MobileSyncSource, interruption: @escaping @Sendable () -> Int32?) throws {
            self.source = source
            thread = try WorkerThread { [self] in checkMembers(self.source, interruption: interruption, &found) }
        }

        func finish() -> Report {
            thread.take()?.join()
            return found
        }
    }

    /// What only restore's own reading of the rows shows: the members a restore would stage, from the reader it
    /// stages them from (`MobileSyncMemberReader`), judged as verify judges a tar's (`MemberRules`, and a device
    /// plist restore parses parsed as restore parses it), `StagedNames` for what restore's staging tree refuses, and
    /// the apps' list restore reinstalls from. The reader refuses a row where restore does (a domain identifier iOS
    /// does not allow, a domain root that is not a directory, a name devicectl reserves) and stops there, as restore
    /// does: its problems count when the rows passed, so what it finds is what restore would meet first.
    private static func checkMembers(
        _ source: MobileSyncSource, interruption: @escaping @Sendable () -> Int32?, _ report: inout Report
    ) {
        func refused(_ reader: MobileSyncMemberReader, _ reason: String) {
            report.problem("\(display(reader.currentRow.domain, reader.currentRow.path)): \(reason) (restore refuses it)")
        }
        var names = StagedNames(placesContainers: false)
        do {
            // Content files were checked on the rows: only the device plists' are read again, to parse them.
            let reader = try MobileSyncMemberReader(
                source: source, limit: .reading, interruption: interruption,
                contentNeeded: { path in
                    path.hasSuffix(".plist")
                        && (try? MemberPath(Array(path.utf8))).flatMap(RestoreSession.devicePlist) != nil
                })
            defer { try? reader.close() }
            while let member = try reader.next() {
                let path: MemberPath
                do {
                    path = try MemberPath(member.pathBytes)
                } catch {
                    refused(reader, error.description)
                    continue
                }
                if let refusal = MemberRules.refusal(member, path) { refused(reader, refusal) }
                if let refusal = names.place(path, kind: member.kind) { refused(reader, refusal) }
                guard member.kind == .regular, let plist = RestoreSession.devicePlist(path) else { continue }
                guard member.size <= DevicePlist.maxBytes else {
                    refused(reader, RestoreSession.plistProblem(size: UInt64(member.size)))
                    continue
                }
                var bytes: [UInt8]? = []
                do {
                    _ = try MemberData.read(
                        member, size: UInt64(max(0, member.size)), from: reader, digest: nil, collecting: &bytes,
                        drain: true, interruption: { () throws(RestoreError) in
                            if let signal = interruption() { throw .interrupted(signal: signal) }
                        })
                } catch let problem as MemberData.Problem {
                    refused(reader, problem.reason)
                    continue
                }
                if let bytes, let problem = RestoreSession.plistProblem(plist, bytes, member: member) {
                    refused(reader, problem)
                }
            }
            for directory in StagedNames.skeleton {
                if let problem = names.skeletonProblem(directory) {
                    report.problem("'\(String(decoding: directory, as: UTF8.self))': \(problem) (restore refuses it)")
                }
            }
        } catch RestoreError.interrupted(let signal) {
            report.interruptedBy = signal
        } catch RestoreError.refusedMember(let name, let reason, _) {
            report.problem("\(name): \(reason) (restore refuses it)")
        } catch let error as RestoreError {
            report.problem(error.message)
        } catch {
            report.problem("\(error)")
        }
    }

    private struct Interrupted: Error {
        let signal: Int32
    }

    /// `domain/path`, escaped for a terminal (a hostile name holds control characters).
    static func display(_ domain: String, _ path: String) -> String {
        DeviceValueError.display(path.isEmpty ? domain : domain + "/" + path)
    }

    private static func parent(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[..<$0]) } ?? ""
    }

    private static func checkState(_ source: MobileSyncSource, _ report: inout Report) {
        let info = source.info
        if !info.hasStatus {
            report.warnings.append("\(source.path)/Status.plist is missing (idevicebackup2 and iOSbackup need it)")
        } else if info.snapshotState != "finished" {
            report.problem(
                "\(source.path): the backup is not finished (Status.plist SnapshotState "
                    + "\(info.snapshotState.map { "'\(DeviceValueError.display($0))'" } ?? "missing"))")
        }
        if !info.hasInfo { report.warnings.append("\(source.path)/Info.plist is missing (mvt needs it)") }
        var status = stat()
        if fstatat(source.directory, "Snapshot", &status, AT_SYMLINK_NOFOLLOW) == 0 {
            report.problem("\(source.path)/Snapshot exists: a backup in progress, or one that never finished")
        }
    }

    private enum Finding {
        case none, warning(String), problem(String)
    }

    /// An encrypted backup's file: its key unwraps with its class's key (the class in `EncryptionKey` agreeing with
    /// `ProtectionClass`, as readers take one or the other), its content file decrypts with valid padding, and a
    /// plaintext length other than the record's `Size` is a warning (live databases do this in real backups).
    private static func decryptionProblem(
        _ source: MobileSyncSource, _ fileID: String, record: BackupFileRecord, keys: ClassKeyUnwrapper
    ) -> Finding {
        guard let wrapped = record.encryptionKey.flatMap(WrappedKey.init) else {
            return .problem("its record has no 44-byte EncryptionKey")
        }
        let number = wrapped.protectionClass
        guard Int(number) == record.protectionClass else {
            return .problem("its EncryptionKey is of class \(number), its ProtectionClass \(record.protectionClass)")
        }
        guard var key = keys.unwrap(wrapped) else {
            return .problem("its key does not unwrap with class \(number)'s key")
        }
        defer { BackupEncryption.clear(&key) }
        let name = "\(fileID.prefix(2))/\(fileID)"
        let opened = source.openContent(fileID)
        guard opened >= 0 else {
            return .problem(errno == ENOENT ? "its content file \(name) is missing" : "its content file \(name) cannot be opened")
        }
        let content = FileDescriptor(rawValue: opened, path: name)
        let fd = content.rawValue
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            return .problem("its content file \(name) is not a regular file")
        }
        guard let decipher = try? FileCipher(key: key, encrypting: false),
            let length = try? MobileSyncSource.decrypt(fd, into: nil, with: decipher, shown: name)
        else { return .problem("its content file \(name) does not decrypt (bad padding: damaged, or another key)") }
        guard length == record.size else {
            return .warning("decrypts to \(length) bytes, the record says \(record.size)")
        }
        return .none
    }

    /// Why the content file of `fileID` is not a regular file of `size` bytes; nil when it is.
    private static func contentProblem(_ source: MobileSyncSource, _ fileID: String, size: UInt64) -> String? {
        let name = "\(fileID.prefix(2))/\(fileID)"
        let opened = source.openContent(fileID)
        guard opened >= 0 else {
            let code = errno  // before the message is built (building a string may allocate, and change errno)
            return code == ENOENT ? "its content file \(name) is missing" : "its content file \(name) cannot be opened "
                + "(\(SystemError.phrase(code)))"
        }
        let content = FileDescriptor(rawValue: opened, path: name)
        let fd = content.rawValue
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            return "its content file \(name) is not a regular file"
        }
        guard UInt64(status.st_size) == size else {
            return "its content file is \(status.st_size) bytes, the record says \(size)"
        }
        return nil
    }

    /// Content files no row names are problems; other entries beside the backup's own, warnings. Every file row's
    /// content file was found, each under its own fileID: as many content files as file rows means none is
    /// stray, and only otherwise is each name looked up.
    private static func checkDirectory(_ source: MobileSyncSource, fileRows: Int, _ report: inout Report) {
        guard let top = try? DirectoryEntries.list(source.directory, display: source.path) else { return }
        var contents: [(String, [String])] = []
        var count = 0
        for entry in top {
            let name = String(decoding: entry.name, as: UTF8.self)
            if ownNames.contains(name) { continue }
            guard entry.name.count == 2, entry.name.allSatisfy({ Hex.digit($0) != nil && !(0x41...0x46).contains($0) }),
                entry.isDirectory
            else {
                report.warnings.append("\(source.path)/\(DeviceValueError.display(name)): not part of a backup")
                continue
            }
            let directory = FileDescriptor(
                rawValue: openat(source.directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), path: name)
            guard directory.rawValue >= 0,
                let files = try? DirectoryEntries.list(directory.rawValue, display: "\(source.path)/\(name)")
            else {
                report.problem("\(source.path)/\(name): cannot be listed")
                continue
            }
            count += files.count
            contents.append((name, files.map { String(decoding: $0.name, as: UTF8.self) }))
        }
        guard count != fileRows else { return }
        for (directory, names) in contents {
            for name in names {
                let named = name.hasPrefix(directory) && FileID.isValid(name)
                    && ((try? source.database.hasFileRow(fileID: name)) ?? false)
                if !named {
                    report.problem("\(source.path)/\(directory)/\(DeviceValueError.display(name)): a content file no row names")
                }
            }
        }
    }
}
