// ArchiveTarget: what `backup -o PATH` names, once its symlinks are followed, and so how the archive is written.
import Glibc
import SystemKit

/// The object a backup's `-o PATH` writes to, decided by `lstat` before anything is opened or written:
/// - a regular file, or a name nothing uses yet, is replaced atomically (`AtomicArchiveFile`);
/// - a character device (`/dev/null`) or a FIFO is written in place (`StreamArchiveFile`), never replaced;
/// - a symlink is followed, as cp, tar and gzip write through one: `latest.tar -> real/2026.tar` replaces
///   `real/2026.tar` atomically and leaves the link as it is; a dangling link creates its target; a link to a
///   device or FIFO (`/dev/stdout` on a pipe) is opened through the link;
/// - a directory, a block device, a socket, a loop of symlinks (more than 40 links, the kernel's limit) and a
///   missing or non-directory parent are refused naming the path.
enum ArchiveTarget: Equatable {
    /// Replaced atomically: `path` is a regular file or does not exist (its directory does).
    case replace(path: String)
    /// Written in place: `path` is a character device or a FIFO.
    case stream(path: String)

    /// Symlinks followed before giving up (the kernel's `MAXSYMLINKS`).
    static let symlinkLimit = 40

    /// The path written to (after symlinks).
    var path: String {
        switch self {
        case .replace(let path), .stream(let path): path
        }
    }

    /// Resolves `archive` (the user's `-o`, shown as given in every error).
    static func resolve(_ archive: String) throws(BackupError) -> ArchiveTarget {
        var current = archive
        var links = 0
        while true {
            var status = stat()
            if lstat(current, &status) != 0 {
                let failure = SystemError("lstat", path: current)
                guard failure.code == ENOENT || failure.code == ENOTDIR else {
                    throw refusal(archive, current, cause: failure)
                }
                try checkParent(of: current, archive: archive)
                return .replace(path: current)
            }
            switch FileKind(mode: status.st_mode) {
            case .regular:
                return .replace(path: current)
            case .characterDevice, .fifo:
                return .stream(path: current)
            case .symlink:
                // A link to a device or FIFO is opened through the link, as the kernel resolves it: /dev/stdout
                // and /dev/fd/N are links whose text ("pipe:[N]") names nothing.
                var resolved = stat()
                if stat(current, &resolved) == 0, [.characterDevice, .fifo].contains(FileKind(mode: resolved.st_mode)) {
                    return .stream(path: current)
                }
                links += 1
                guard links <= symlinkLimit else {
                    throw refusal(
                        archive, current, "it is a loop of symbolic links (more than \(symlinkLimit) followed)")
                }
                current = try follow(current, archive: archive)
            case .directory:
                throw refusal(archive, current, "it is a directory")
            case .blockDevice:
                throw refusal(archive, current, "it is a block device (a disk); an archive is never written onto one")
            case .socket:
                throw refusal(archive, current, "it is a socket")
            case .unknown:
                throw refusal(archive, current, "it is not a file an archive can be written to")
            }
        }
    }

    /// The path `link` points to, relative targets taken from the link's directory.
    private static func follow(_ link: String, archive: String) throws(BackupError) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
        let length = readlink(link, &buffer, buffer.count)
        if length < 0 { throw refusal(archive, link, cause: SystemError("readlink", path: link)) }
        guard length > 0, length < buffer.count else {
            throw refusal(archive, link, "the symbolic link's target is empty or too long")
        }
        let target = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if target.hasPrefix("/") || !link.contains("/") { return target }
        let directory = directory(of: link)
        return (directory == "/" ? "" : directory) + "/" + target
    }

    /// A name not taken yet must be a file name in an existing directory.
    private static func checkParent(of path: String, archive: String) throws(BackupError) {
        let base = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        guard !base.isEmpty, base != ".", base != ".." else {
            throw refusal(archive, path, "it is not a file name")
        }
        let directory = directory(of: path)
        var status = stat()
        if stat(directory, &status) != 0 {
            let failure = SystemError("stat", path: directory)
            if failure.code == ENOENT { throw refusal(archive, path, "the directory \(directory) does not exist") }
            if failure.code == ENOTDIR {
                throw refusal(archive, path, "\(directory) is not a directory (one of its parents is a file)")
            }
            throw refusal(archive, path, cause: failure)
        }
        guard status.st_mode & S_IFMT == S_IFDIR else {
            throw refusal(archive, path, "\(directory) is not a directory")
        }
    }

    /// `path`'s directory: `.` for a bare name, `/` for a name in the root.
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    private static func refusal(_ archive: String, _ resolved: String, _ reason: String) -> BackupError {
        .unwritable(archive: shown(archive, resolved), reason: reason, cause: nil)
    }

    private static func refusal(_ archive: String, _ resolved: String, cause: SystemError) -> BackupError {
        .unwritable(archive: shown(archive, resolved), reason: cause.phrase, cause: cause)
    }

    /// The user's path, and where its symlinks led when that is elsewhere.
    static func shown(_ archive: String, _ resolved: String) -> String {
        archive == resolved ? archive : "\(archive) (a symbolic link to \(resolved))"
    }
}
