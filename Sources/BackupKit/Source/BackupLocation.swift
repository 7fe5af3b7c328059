// BackupLocation: what a path given to restore, verify or list is: a tar archive or a MobileSync backup directory.
import Glibc
import SystemKit

/// The format of a backup named on the command line, told from the path itself (no option): a directory holding
/// `Manifest.plist` is a MobileSync backup; a directory holding exactly one such directory (a `MobileSync/Backup`
/// folder, hidden names aside) is that backup; anything else that is a directory is refused; everything else (a
/// file, `-`, a FIFO) is read as a tar archive.
public enum BackupLocation: Sendable, Equatable {
    case archive(String)
    case mobileSync(String)

    /// Why a directory is no backup.
    public struct NotABackup: Error, CustomStringConvertible, Sendable {
        public let path: String
        public let reason: String
        public var description: String { "\(path) is a directory \(reason)" }
    }

    public static func of(_ path: String) throws(NotABackup) -> BackupLocation {
        var status = stat()
        guard path != "-", stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { return .archive(path) }
        if holdsManifest(path) { return .mobileSync(path) }
        let opened = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard opened >= 0 else {
            let code = errno  // before the message is built (building a string may allocate, and change errno)
            throw NotABackup(path: path, reason: "that cannot be read (\(SystemError.phrase(code)))")
        }
        let directory = FileDescriptor(rawValue: opened, path: path)
        let fd = directory.rawValue
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 32 << 10, alignment: 8)
        defer { scratch.deallocate() }
        var backups: [String] = []
        if let listing = try? DirectoryListing.read(directory: fd, path: path, scratch: scratch) {
            for index in listing.entries.indices {
                let name = listing.name(at: index)
                guard name.first != UInt8(ascii: "."), let text = String(validating: name, as: UTF8.self) else { continue }
                let candidate = path.hasSuffix("/") ? path + text : path + "/" + text
                if holdsManifest(candidate) { backups.append(candidate) }
            }
        }
        switch backups.count {
        case 1: return .mobileSync(backups[0])
        case 0:
            throw NotABackup(path: path, reason: "holding no MobileSync backup (no Manifest.plist in it or below it)")
        default:
            throw NotABackup(
                path: path,
                reason: "holding \(backups.count) MobileSync backups; name one: " + backups.sorted().joined(separator: ", "))
        }
    }

    private static func holdsManifest(_ directory: String) -> Bool {
        var status = stat()
        return lstat(directory + "/Manifest.plist", &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }
}
