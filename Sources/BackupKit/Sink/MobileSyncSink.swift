// MobileSyncSink: the MobileSync format behind `FormatSink`: content files named by SHA-1 and Manifest.db rows.
import Foundation
import Glibc
import MobileSyncKit
import SystemKit

/// Writes the members into a backup directory as a device's backup lays them out (reference §5.8 "Write"):
/// each member's domain and path from `DomainMap`, a Manifest.db row for every file, directory and symlink
/// (the domain root `""` included: HomeDomain's is ROOT, written first), each file's data at
/// `<fileID[0:2]>/<fileID>`, a hard link's data copied from the file it names. devicectl's own manifest, the last
/// member, is kept beside them as `devicectl-manifest.jsonl`. A deferred file (`SinkMember.deferred`) gets its row
/// and key at its member and its content file at its `resume`; once every member is begun (`membersComplete`, or
/// `finish`) the rows thread closes Manifest.db (and encrypts it) while the rest is written. `finish()` waits for
/// it, then writes Manifest.plist and Info.plist, and Status.plist (`finished`) last. Every name is created with
/// `O_CREAT | O_EXCL | O_NOFOLLOW` in a directory the sink made, by descriptor.
final class MobileSyncSink: FormatSink {
    /// The name devicectl's manifest takes in the backup directory.
    static let manifestName = "devicectl-manifest.jsonl"
    /// Owner and group of every row: `mobile`, as /var/mobile's files are on a device.
    static let mobile: UInt32 = 501
    /// The protection class of every file: `NSFileProtectionCompleteUntilFirstUserAuthentication`, an app
    /// file's default.
    static let fileProtectionClass = 3

    private let directory: Int32
    private let shown: String
    private let map: DomainMap
    /// Manifest.db's rows, encoded and inserted on their own thread.
    private let rows: ManifestRowWriter
    /// The plists' contents, given the keybag (made on a thread of its own: `PendingKeyBag`).
    private let properties: (BackupKeyBag) -> BackupProperties
    private let keyBag: PendingKeyBag
    private let interruption: () -> Int32?
    /// An encrypted backup's keys; nil for a plain backup.
    private let encryption: BackupEncryption?
    /// Content files are created, encrypted and written on a thread of their own; `contentOpen` while one is
    /// being handed over.
    private let contents: ContentFileWriters
    private var contentOpen = false
    /// Files begun deferred (`SinkMember.deferred`) whose data has not come yet, in order: each one's fileID and, in
    /// an encrypted backup, its file key; a nil fileID for a file not stored (its data is passed over).
    private var deferredFiles: [(fileID: String?, key: [UInt8]?)] = []
    /// Manifest.db is being closed on the rows thread (`membersComplete`, or `finish`).
    private var databaseClosing = false
    /// The `xx` directories made so far, open (by their first byte's value; -1 until made).
    private let contentDirectories = DescriptorTable(count: 256)
    /// The attributes of stored files that have any, by path relative to ROOT: a hard link has its inode's
    /// attributes, which only the first name's member carries. (A hard link's content is found by its first
    /// name's fileID, computed again: no table of every file is kept.)
    private var fileAttributes: [String: [(String, [UInt8])]] = [:]
    /// In an encrypted backup, each file with other names: its `EncryptionKey` and size (its hard links' copies
    /// are the same ciphertext under the same key).
    private var linkedKeys: [String: (key: [UInt8], size: UInt64)] = [:]
    /// The file being written (not a content file: those are the content writer's), the bytes it still expects,
    /// and its name for messages; a content file's name is made from its fileID only for a message.
    private var current: FileDescriptor?
    private var remaining: UInt64 = 0
    private var currentName = ""
    private var currentFileID: String?
    /// Containers and paths left out, each named once.
    private var unmappedTops: Set<String> = []
    private(set) var notes: [String] = []
    /// The rows stored, the domains' roots included (HomeDomain's is ROOT).
    private(set) var counts = EntryCounts()
    var storedCounts: EntryCounts? { counts }
    private(set) var bytesWritten: UInt64 = 0

    /// Starts a backup in `directory` (borrowed, empty, named `shown`): creates Manifest.db and HomeDomain's root
    /// row from ROOT's `rootStatus`.
    init(
        directory: Int32, shown: String, map: DomainMap, properties: @escaping (BackupKeyBag) -> BackupProperties,
        keyBag: PendingKeyBag, rootStatus: FileStatus, encryption: BackupEncryption? = nil,
        interruption: @escaping () -> Int32?
    ) throws(BackupError) {
        self.encryption = encryption
        self.directory = directory
        self.shown = shown
        self.map = map
        self.properties = properties
        self.keyBag = keyBag
        self.interruption = interruption
        let database: ManifestDatabaseWriter
        do {
            database = try ManifestDatabaseWriter(directory: directory, shown: "\(shown)/Manifest.db")
        } catch { throw .format(error) }
        do {
            rows = try ManifestRowWriter(database: database)
            contents = try ContentFileWriters(shown: shown)
        } catch { throw .system(error) }
        let root = BackupFileRecord(
            kind: .directory, relativePath: "", mode: rootStatus.mode, userID: Self.mobile, groupID: Self.mobile,
            inode: 0, size: 0, birth: rootStatus.mtimeSeconds, lastModified: rootStatus.mtimeSeconds,
            lastStatusChange: rootStatus.mtimeSeconds, protectionClass: 0)
        try insert(root, domain: DomainMap.homeDomain)
    }

    deinit {
        // The content writer borrows the `xx` directories: stopped first.
        stop()
        current = nil
        contentDirectories.closeAll()
        for index in deferredFiles.indices where deferredFiles[index].key != nil {
            BackupEncryption.clear(&deferredFiles[index].key!)
        }
    }

    func begin(_ member: SinkMember) throws(BackupError) {
        if let signal = interruption() { throw .interrupted(signal: signal) }
        try closeCurrent()
        let path = String(decoding: UnsafeRawBufferPointer(member.path), as: UTF8.self)
        if path == Manifest.memberName {
            // An encrypted backup keeps nothing of devicectl's in the clear beside its encrypted files.
            if encryption == nil { try create(Self.manifestName, in: directory, size: member.size) }
            return
        }
        switch map.placement(of: path) {
        case .structure:
            if member.deferred { deferredFiles.append((nil, nil)) }
            return
        case .unmapped(let top):
            if member.deferred { deferredFiles.append((nil, nil)) }
            if unmappedTops.insert(top).inserted {
                notes.append("\(top): not in any backup domain (no container metadata names it); not stored")
            }
            return
        case .row(let domain, let relativePath):
            try store(member, path: path, domain: domain, relativePath: relativePath)
        }
    }

    /// Stops the writer threads (content files, Manifest.db rows) without finishing: a failed backup's temporary
    /// directory is removed only once nothing writes into it.
    func stop() {
        contents.cancel()
        rows.cancel()
    }

    func write(_ data: UnsafeRawBufferPointer) throws(BackupError) {
        guard current != nil || contentOpen else { return }
        guard UInt64(data.count) <= remaining else {
            throw .output("internal error: more data than \(currentShown)'s size")
        }
        remaining -= UInt64(data.count)
        if contentOpen { return try contents.write(data) }
        try writeAll(data)
    }

    /// Writes all of `data` to the current file.
    private func writeAll(_ data: UnsafeRawBufferPointer) throws(BackupError) {
        do { try Kernel.writeAll(current?.rawValue ?? -1, data, path: currentName) } catch { throw .system(error) }
        bytesWritten += UInt64(data.count)
    }

    /// Every row is known: Manifest.db is closed (and encrypted) on the rows thread while the deferred files' data
    /// comes and is written.
    func membersComplete() throws(BackupError) {
        try closeCurrent()
        try closeDatabase()
    }

    func resume(size: UInt64) throws(BackupError) {
        if let signal = interruption() { throw .interrupted(signal: signal) }
        try closeCurrent()
        guard !deferredFiles.isEmpty else { throw .output("internal error: data for a file that was not deferred") }
        var (fileID, key) = deferredFiles.removeFirst()
        defer { if key != nil { BackupEncryption.clear(&key!) } }
        guard let fileID else { return }  // not stored: `write` passes its data over
        try openContentFile(fileID, key: key, size: size)
    }

    func finish() throws(BackupError) {
        try closeCurrent()
        guard deferredFiles.isEmpty else { throw .output("internal error: deferred files whose data never came") }
        try closeDatabase()
        bytesWritten += try contents.finish()
        bytesWritten += try rows.wait()
        let uuid = UUID().uuidString
        let properties: BackupProperties
        do { properties = self.properties(try keyBag.value()) } catch { throw .format(error) }
        // Status.plist last: until it says `finished`, nothing here is a complete backup.
        for (name, bytes) in [
            ("Manifest.plist", properties.manifestPlist()), ("Info.plist", properties.infoPlist()),
            ("Status.plist", properties.statusPlist(uuid: uuid)),
        ] {
            try create(name, in: directory, size: UInt64(bytes.count))
            try bytes.withUnsafeBytes { buffer in Result { () throws(BackupError) in try write(buffer) } }.get()
            try closeCurrent()
        }
        var status = stat()
        if encryption == nil, fstatat(directory, "Manifest.db", &status, AT_SYMLINK_NOFOLLOW) == 0 {
            bytesWritten += UInt64(status.st_size)
        }
    }

    // MARK: - Members

    private func store(_ member: SinkMember, path: String, domain: String, relativePath: String) throws(BackupError) {
        var record = BackupFileRecord(
            kind: .directory, relativePath: relativePath, mode: member.mode, userID: Self.mobile,
            groupID: Self.mobile, inode: 0, size: 0, birth: member.mtimeSeconds, lastModified: member.mtimeSeconds,
            lastStatusChange: member.mtimeSeconds, protectionClass: 0,
            extendedAttributes: Self.attributes(of: member))
        let fileID = FileID.of(domain: domain, relativePath: relativePath)
        switch member.kind {
        case .directory:
            break
        case .symlink:
            let target = String(decoding: UnsafeRawBufferPointer(member.link!), as: UTF8.self)
            guard let devicePath = DomainMap.devicePath(ofLink: target, at: path) else {
                notes.append("\(path): its target \(target) is outside the device; not stored")
                return
            }
            record.kind = .symlink
            record.target = devicePath
        case .file:
            record.kind = .file
            record.size = member.size
            record.protectionClass = Self.fileProtectionClass
            record.encryptionKey =
                member.deferred ? try deferContentFile(fileID) : try createContentFile(fileID, size: member.size)
            if !record.extendedAttributes.isEmpty { fileAttributes[path] = record.extendedAttributes }
            if member.linked, let key = record.encryptionKey { linkedKeys[path] = (key, member.size) }
        case .hardlink:
            let source = String(decoding: UnsafeRawBufferPointer(member.link!), as: UTF8.self)
            guard case .row(let sourceDomain, let sourcePath) = map.placement(of: source) else {
                notes.append("\(path): a hard link to \(source), which is not stored; not stored")
                return
            }
            let sourceID = FileID.of(domain: sourceDomain, relativePath: sourcePath)
            let attributes = fileAttributes[source] ?? []
            record.kind = .file
            record.mode = (record.mode & ~UInt32(S_IFMT)) | UInt32(S_IFREG)
            record.protectionClass = Self.fileProtectionClass
            record.extendedAttributes = attributes
            // An encrypted copy is the same ciphertext under the same key as the first name's.
            if encryption != nil {
                guard let first = linkedKeys[source] else {
                    throw BackupError.output("internal error: no key for \(source)")
                }
                record.encryptionKey = first.key
                record.size = first.size
                _ = try copyContent(from: sourceID, to: fileID)
            } else {
                record.size = try copyContent(from: sourceID, to: fileID)
            }
        }
        try insert(record, domain: domain, fileID: fileID)
    }

    /// The member's `user.*` attributes by their iOS names (without `user.`).
    private static func attributes(of member: SinkMember) -> [(String, [UInt8])] {
        var result: [(String, [UInt8])] = []
        member.forEachAttribute { name, value in
            let text = String(decoding: UnsafeRawBufferPointer(name), as: UTF8.self)
            result.append((text.hasPrefix("user.") ? String(text.dropFirst(5)) : text, Array(value)))
        }
        return result
    }

    private func insert(_ record: BackupFileRecord, domain: String, fileID: String? = nil) throws(BackupError) {
        switch record.kind {
        case .file:
            counts.files += 1
            counts.bytes += record.size
        case .directory: counts.directories += 1
        case .symlink: counts.symlinks += 1
        }
        do {
            try rows.add(ManifestRowWriter.Row(record: record, domain: domain, fileID: fileID))
        } catch { throw .format(error) }
    }

    /// The file being written, as messages name it.
    private var currentShown: String {
        currentFileID.map { "\(shown)/\(ContentFileWriter.contentPath($0))" } ?? currentName
    }

    // MARK: - Content files

    /// The `xx` directory of `fileID`, made and opened on first use (kept open: borrowed by the caller).
    private func contentDirectory(_ fileID: String) throws(BackupError) -> Int32 {
        var first = fileID.utf8.makeIterator()
        let high = first.next().flatMap(Hex.digit) ?? 0, low = first.next().flatMap(Hex.digit) ?? 0
        let index = Int(high) << 4 | Int(low)
        if contentDirectories[index] >= 0 { return contentDirectories[index] }
        let name = String(fileID.prefix(2))
        if mkdirat(directory, name, 0o755) != 0 && errno != EEXIST {
            throw .system(SystemError("mkdirat", path: "\(shown)/\(name)"))
        }
        let fd = openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw .system(SystemError("openat", path: "\(shown)/\(name)")) }
        contentDirectories.store(FileDescriptor(rawValue: fd, path: ""), at: index)
        return fd
    }

    /// Creates the content file of `fileID` for `size` bytes of plaintext; returns its `EncryptionKey` (the
    /// class and the wrapped file key) in an encrypted backup, whose data is then encrypted as it is written.
    @discardableResult
    private func createContentFile(_ fileID: String, size: UInt64) throws(BackupError) -> [UInt8]? {
        var (key, encryptionKey) = try newFileKey()
        defer { if key != nil { BackupEncryption.clear(&key!) } }
        try openContentFile(fileID, key: key, size: size)
        return encryptionKey
    }

    /// Makes the key of the content file of `fileID`, created when its data comes (`resume`); returns its
    /// `EncryptionKey` in an encrypted backup.
    private func deferContentFile(_ fileID: String) throws(BackupError) -> [UInt8]? {
        let (key, encryptionKey) = try newFileKey()
        deferredFiles.append((fileID, key))
        return encryptionKey
    }

    /// A fresh file key and its `EncryptionKey` value in an encrypted backup; neither in a plain one.
    private func newFileKey() throws(BackupError) -> (key: [UInt8]?, encryptionKey: [UInt8]?) {
        guard let encryption else { return (nil, nil) }
        do {
            let made = try encryption.fileKey(protectionClass: UInt32(Self.fileProtectionClass))
            return (made.key, made.encryptionKey)
        } catch { throw .format(error) }
    }

    /// Opens the content file of `fileID` for `size` bytes of plaintext, encrypted under `key` when one is given (the
    /// caller clears it); an empty file is closed at once.
    private func openContentFile(_ fileID: String, key: [UInt8]?, size: UInt64) throws(BackupError) {
        currentFileID = fileID
        try contents.create(in: try contentDirectory(fileID), name: fileID, key: key)
        contentOpen = true
        remaining = size
        if size == 0 { try closeCurrent() }
    }

    /// Creates `name` in `parent` for `size` bytes of data; an empty file is closed at once.
    private func create(_ name: String, in parent: Int32, size: UInt64, shownAs: String? = nil) throws(BackupError) {
        currentFileID = nil
        currentName = "\(shown)/\(shownAs ?? name)"
        let fd = openat(parent, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .system(SystemError("openat", path: currentName)) }
        current = FileDescriptor(rawValue: fd, path: currentName)
        remaining = size
        if size == 0 { try closeCurrent() }
    }

    private func closeCurrent() throws(BackupError) {
        if contentOpen {
            guard remaining == 0 else {
                throw .output("internal error: \(currentShown) ended \(remaining) bytes short")
            }
            contentOpen = false
            return try contents.close()
        }
        guard current != nil else { return }
        guard remaining == 0 else {
            current = nil  // closed: the file is incomplete, the error says so
            throw .output("internal error: \(currentName) ended \(remaining) bytes short")
        }
        // A failed close of a written file is reported (the data may not be stored).
        guard let file = current.take() else { return }
        do { try file.close() } catch { throw .system(error) }
    }

    /// Hands the last rows to the rows thread, which then closes Manifest.db and, encrypted, encrypts it (once).
    private func closeDatabase() throws(BackupError) {
        guard !databaseClosing else { return }
        databaseClosing = true
        let directory = directory, shown = shown, key = encryption?.manifestKey
        let finishing: (ManifestDatabaseWriter) throws(BackupError) -> UInt64 = { database throws(BackupError) in
            do throws(MobileSyncError) { try database.finish() } catch { throw .format(error) }
            guard let key else { return 0 }
            return try Self.encryptDatabase(in: directory, shown: shown, with: key)
        }
        do throws(MobileSyncError) { try rows.finish(then: finishing) } catch { throw .format(error) }
    }

    /// Replaces the closed Manifest.db in `directory` by its encryption under `key` (AES-256-CBC, PKCS#7), in place;
    /// returns the bytes written.
    private static func encryptDatabase(in directory: Int32, shown: String, with key: [UInt8]) throws(BackupError) -> UInt64 {
        // In place: AES-CBC writes each block no further than the bytes already read (the padding block past the
        // end), and the database's pages are overwritten rather than a second file's pages allocated (a failure
        // leaves the temporary directory, which is removed, as ever).
        let name = "\(shown)/Manifest.db"
        let opened = openat(directory, "Manifest.db", O_RDWR | O_NOFOLLOW | O_CLOEXEC)
        guard opened >= 0 else { throw .system(SystemError("openat", path: name)) }
        let file = FileDescriptor(rawValue: opened, path: name)
        let descriptor = file.rawValue
        let databaseCipher: FileCipher
        do { databaseCipher = try FileCipher(key: key) } catch { throw .format(error) }
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 128 << 10, alignment: 16)
        defer { chunk.deallocate() }
        let output = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk.count + 16, alignment: 16)
        defer { output.deallocate() }
        var readOffset: off_t = 0, writeOffset: UInt64 = 0
        func put(_ bytes: UnsafeRawBufferPointer) throws(BackupError) {
            do { try Kernel.writeAll(descriptor, bytes, at: writeOffset, path: name) } catch { throw .system(error) }
            writeOffset += UInt64(bytes.count)
        }
        while true {
            let n = pread(descriptor, chunk.baseAddress, chunk.count, readOffset)
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw .system(SystemError("pread", path: name)) }
            if n == 0 { break }
            readOffset += off_t(n)
            let produced: Int
            let input = UnsafeRawBufferPointer(rebasing: chunk[0..<n])
            do { produced = try databaseCipher.update(input, into: output) } catch { throw .format(error) }
            try put(UnsafeRawBufferPointer(rebasing: output[0..<produced]))
        }
        guard let last = databaseCipher.finish() else { throw .format(.crypto(call: "EVP_CipherFinal_ex")) }
        try last.withUnsafeBytes { buffer in Result { () throws(BackupError) in try put(buffer) } }.get()
        do { try file.close() } catch { throw .system(error) }
        return writeOffset
    }

    /// Copies the content file of `source` byte for byte (in an encrypted backup, the ciphertext) to a new content
    /// file `fileID`; returns its size.
    private func copyContent(from source: String, to fileID: String) throws(BackupError) -> UInt64 {
        try contents.drain()  // the source's content file is complete on disk
        let sourceDirectory = try contentDirectory(source)
        let sourceName = "\(shown)/\(ContentFileWriter.contentPath(source))"
        let opened = openat(sourceDirectory, source, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard opened >= 0 else { throw .system(SystemError("openat", path: sourceName)) }
        let input = FileDescriptor(rawValue: opened, path: "")  // read only: closed silently; messages build its name
        var status = stat()
        guard fstat(input.rawValue, &status) == 0 else {
            throw .system(SystemError("fstat", path: sourceName))
        }
        let size = UInt64(status.st_size)
        try create(fileID, in: try contentDirectory(fileID), size: size, shownAs: ContentFileWriter.contentPath(fileID))
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 10, alignment: 16)
        defer { chunk.deallocate() }
        while remaining > 0 {
            let n = read(input.rawValue, chunk.baseAddress, min(chunk.count, Int(clamping: remaining)))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw .system(SystemError("read", path: sourceName)) }
            remaining -= UInt64(n)
            try writeAll(UnsafeRawBufferPointer(rebasing: chunk[0..<n]))
        }
        try closeCurrent()
        return size
    }
}
