// MobileSyncSource: an open MobileSync backup directory: its plists and its Manifest.db rows, each checked.
import Foundation
import Glibc
import MobileSyncKit
import PropertyListKit
import SystemKit

/// One MobileSync backup, opened for reading: the directory (by descriptor: every later open is relative to it,
/// `O_NOFOLLOW`), what its plists say (`BackupInfo`) and its index (`ManifestDatabaseReader`: read-only and
/// immutable, so nothing in the backup ever changes). A backup another tool decrypted (IsEncrypted, but an
/// SQLite Manifest.db) is read as a plain one, as mvt reads it.
final class MobileSyncSource {
    /// One checked row.
    struct Entry {
        let fileID: String
        let domain: String
        let record: BackupFileRecord
    }

    let path: String
    /// The backup directory, owned. (The descriptors are declared before `database`: closed before it is
    /// released.)
    private let directoryFile: FileDescriptor
    /// The decrypted Manifest.db: an unnamed file (`O_TMPFILE`, 0600), gone when it is closed or the process ends.
    private var decryptedDatabase: FileDescriptor?
    let info: BackupInfo
    let database: ManifestDatabaseReader
    /// An encrypted backup's class keys (its files are decrypted with them); nil for a plain one, or a copy another
    /// tool decrypted.
    private(set) var classKeys: [UInt32: [UInt8]]?

    /// The backup directory's descriptor (borrowed: open as long as the source).
    var directory: Int32 { directoryFile.rawValue }

    /// Opens the backup at `path`; `password` is asked for only when the backup is encrypted (nil: none given).
    init(path: String, password: () throws -> [UInt8]? = { nil }) throws {
        self.path = path
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw MobileSyncReadError.open(path: path, SystemError("open", path: path)) }
        // From here on, a throw closes what is open (the stored descriptors go with the unfinished source).
        directoryFile = FileDescriptor(rawValue: fd, path: path)
        do {
            info = try BackupInfo.read(directory: fd, shown: path)
        } catch {
            throw MobileSyncReadError.properties(error)
        }
        do {
            database = try ManifestDatabaseReader(directory: fd, shown: "\(path)/Manifest.db")
        } catch {
            guard case .unreadable(_, .notSQLite) = error, info.isEncrypted else {
                throw MobileSyncReadError.database(path: path, error)
            }
            do {
                guard var secret = try password() else { throw MobileSyncReadError.encrypted(path: path) }
                defer { BackupEncryption.clear(&secret) }
                let keys = try Self.unlock(info, password: secret, path: path)
                classKeys = keys
                let decrypted = try Self.decryptDatabase(directory: fd, info: info, keys: keys, path: path)
                let descriptor = decrypted.rawValue
                decryptedDatabase = consume decrypted
                database = try ManifestDatabaseReader(descriptor: descriptor, shown: "\(path)/Manifest.db")
            } catch {
                decryptedDatabase = nil  // closed before the directory, as the throw closes that
                if let failure = error as? MobileSyncError { throw MobileSyncReadError.database(path: path, failure) }
                throw error
            }
        }
        // iOS 10.0 and 10.1 left Manifest.db plain in an encrypted backup (no ManifestKey) while its files are
        // encrypted; a copy another tool decrypted keeps its ManifestKey, and its files are plain. (A throw from here
        // on releases everything through deinit.)
        if info.isEncrypted && !info.hasManifestKey && classKeys == nil {
            guard var secret = try password() else { throw MobileSyncReadError.encrypted(path: path) }
            defer { BackupEncryption.clear(&secret) }
            classKeys = try Self.unlock(info, password: secret, path: path)
        }
    }

    /// A second reader of the same open backup, for another thread: the backup directory's and the decrypted
    /// Manifest.db's descriptors duplicated, a database connection of its own (read-only and immutable, as the
    /// first), the plists and class keys as `other` read them (no password asked again).
    init(sibling other: MobileSyncSource) throws {
        path = other.path
        let fd = fcntl(other.directory, F_DUPFD_CLOEXEC, 0)
        guard fd >= 0 else { throw MobileSyncReadError.open(path: path, SystemError("fcntl", path: path)) }
        directoryFile = FileDescriptor(rawValue: fd, path: path)
        info = other.info
        classKeys = other.classKeys
        do {
            if let decrypted = other.decryptedDatabase?.rawValue {
                let copy = fcntl(decrypted, F_DUPFD_CLOEXEC, 0)
                guard copy >= 0 else { throw MobileSyncReadError.open(path: path, SystemError("fcntl", path: path)) }
                decryptedDatabase = FileDescriptor(rawValue: copy, path: "")
                database = try ManifestDatabaseReader(descriptor: copy, shown: "\(path)/Manifest.db")
            } else {
                database = try ManifestDatabaseReader(directory: fd, shown: "\(path)/Manifest.db")
            }
        } catch let error as MobileSyncError {
            throw MobileSyncReadError.database(path: path, error)
        }
    }

    deinit {
        if var keys = classKeys {
            for number in keys.keys { BackupEncryption.clear(&keys[number]!) }
        }
    }

    static var temporaryDirectory: String { ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp" }

    /// The class keys `password` unlocks in the backup's keybag; a failed unwrap is the wrong password.
    private static func unlock(_ info: BackupInfo, password: [UInt8], path: String) throws -> [UInt32: [UInt8]] {
        guard let bytes = info.keyBag else {
            throw MobileSyncReadError.properties(.init(file: "\(path)/Manifest.plist", reason: "no BackupKeyBag"))
        }
        let bag: BackupKeyBag
        do { bag = try BackupKeyBag.parse(bytes) } catch {
            throw MobileSyncReadError.properties(
                .init(file: "\(path)/Manifest.plist", reason: "its BackupKeyBag is unusable: \(error.reason)"))
        }
        guard let keys = try bag.unlock(password: password) else { throw MobileSyncReadError.wrongPassword(path: path) }
        return keys
    }

    /// Decrypts Manifest.db (AES-256-CBC under the ManifestKey, strict padding) into an unnamed private file in
    /// the temporary directory; returns it, open.
    private static func decryptDatabase(
        directory: Int32, info: BackupInfo, keys: [UInt32: [UInt8]], path: String
    ) throws -> FileDescriptor {
        let shown = "\(path)/Manifest.db"
        guard let wrapped = info.manifestKey.flatMap(WrappedKey.init) else {
            throw MobileSyncReadError.properties(
                .init(file: "\(path)/Manifest.plist", reason: "an encrypted Manifest.db needs a 44-byte ManifestKey"))
        }
        guard var key = ClassKeyUnwrapper(keys: keys).unwrap(wrapped) else {
            throw MobileSyncReadError.refusedRow(path: path, entry: "Manifest.db", reason: "its ManifestKey does not unwrap")
        }
        defer { BackupEncryption.clear(&key) }
        let opened = openat(directory, "Manifest.db", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard opened >= 0 else { throw MobileSyncReadError.open(path: shown, SystemError("openat", path: shown)) }
        let input = FileDescriptor(rawValue: opened, path: shown)
        var status = stat()
        guard fstat(input.rawValue, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw MobileSyncReadError.database(path: path, .unreadable(path: shown, reason: .notRegular))
        }
        let temporary = temporaryDirectory
        let created = open(temporary, O_RDWR | Kernel.temporaryFile | O_CLOEXEC, 0o600)
        guard created >= 0 else {
            throw MobileSyncReadError.open(path: temporary, SystemError("open(O_TMPFILE)", path: temporary))
        }
        // Closed (and gone) if decrypting fails; `input` is closed after it, as before.
        let output = FileDescriptor(rawValue: created, path: temporary)
        let decipher = try FileCipher(key: key, encrypting: false)
        try decrypt(input.rawValue, into: output.rawValue, with: decipher, shown: shown)
        return output
    }

    /// Decrypts all of `input` into `output` (a file, or nil to discard); returns the plaintext's length.
    @discardableResult
    static func decrypt(_ input: Int32, into output: Int32?, with decipher: FileCipher, shown: String) throws -> UInt64 {
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 128 << 10, alignment: 16)
        let plain = UnsafeMutableRawBufferPointer.allocate(byteCount: (128 << 10) + 32, alignment: 16)
        defer {
            chunk.deallocate()
            plain.deallocate()
        }
        var total: UInt64 = 0
        func emit(_ bytes: UnsafeRawBufferPointer) throws {
            total += UInt64(bytes.count)
            guard let output else { return }
            var offset = 0
            while offset < bytes.count {
                let n = write(output, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { throw MobileSyncReadError.open(path: shown, SystemError("write", path: "a temporary file")) }
                offset += n
            }
        }
        while true {
            let n = read(input, chunk.baseAddress, chunk.count)
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw MobileSyncReadError.open(path: shown, SystemError("read", path: shown)) }
            if n == 0 { break }
            let produced = try decipher.update(UnsafeRawBufferPointer(rebasing: chunk[0..<n]), into: plain)
            try emit(UnsafeRawBufferPointer(rebasing: plain[0..<produced]))
        }
        guard let last = decipher.finish() else {
            throw MobileSyncReadError.refusedRow(
                path: shown, entry: "", reason: "does not decrypt (bad padding: damaged, or not encrypted with its key)")
        }
        try last.withUnsafeBytes { try emit($0) }
        return total
    }

    /// Opens the content file `xx/<fileID>` for reading, beneath the backup directory and through no symlink (the
    /// `xx` directory a link to elsewhere included): a backup's bytes never make devicectl read outside it. Returns
    /// the descriptor, or -1 with errno set (`ELOOP`/`EXDEV` for a link).
    func openContent(_ fileID: String) -> Int32 {
        Kernel.openat2(
            directory, "\(fileID.prefix(2))/\(fileID)", O_RDONLY | O_NONBLOCK | O_CLOEXEC,
            resolve: [.beneath, .noSymlinks, .noMagicLinks])
    }

    /// Each row in (domain, path) order: `entry` with the checked record, or `refused` with the row's domain, path
    /// and the reason. A failure to read the database throws `MobileSyncReadError`; what the closures throw
    /// passes through.
    /// How many rows Manifest.db has (a progress display's total).
    func rowCount() throws -> UInt64 {
        do { return try database.rowCount() } catch { throw MobileSyncReadError.database(path: path, error) }
    }

    func forEachRow(
        entry: (Entry) throws -> Void, refused: (String, String, PropertyListReadError) throws -> Void
    ) throws {
        do {
            try database.forEachRow { row in
                let checked = Result { () throws(PropertyListReadError) in try MobileSyncRowRules.check(row) }
                guard case .success(let record) = checked else {
                    if case .failure(let problem) = checked { try refused(row.domain, row.relativePath, problem) }
                    return
                }
                try entry(Entry(fileID: row.fileID, domain: row.domain, record: record))
            }
        } catch let error as MobileSyncError {
            throw MobileSyncReadError.database(path: path, error)
        }
    }
}
