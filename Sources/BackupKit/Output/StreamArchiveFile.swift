// StreamArchiveFile: an archive written in place to a character device or FIFO named by `-o`.
import Glibc
import SystemKit

/// A character device (`/dev/null`, a tape) or a FIFO, opened for writing as it is: nothing is created,
/// truncated, renamed or replaced, so `/dev/null` stays a device and a FIFO's reader gets the stream. Opening a
/// FIFO waits for a reader, as a shell's `>` does. Like `-o -`, a failed backup leaves what was already written
/// (a truncated archive, which verify and restore refuse). A terminal is refused, as for standard output.
final class StreamArchiveFile {
    /// The path as the user gave it (and where its symlinks led), for messages.
    let shown: String
    /// The device or FIFO, open until `finish()` (or closed silently when the file goes).
    private var file: FileDescriptor?

    /// The raw descriptor to write to; -1 once finished.
    var descriptor: Int32 { file?.rawValue ?? -1 }

    /// Opens `path` (a character device or FIFO, or a symlink to one, by `ArchiveTarget`) and checks that what
    /// was opened is one: anything else that took its place is closed unwritten.
    init(path: String, shown: String) throws(BackupError) {
        self.shown = shown
        let fd: Int32
        do {
            fd = try SystemError.check("open", path: path) { open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC) }
        } catch {
            throw BackupError.unwritable(archive: shown, reason: error.phrase, cause: error)
        }
        file = FileDescriptor(rawValue: fd, path: shown)
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            let failure = SystemError("fstat", path: path)
            file = nil
            throw BackupError.unwritable(archive: shown, reason: failure.reason, cause: failure)
        }
        let kind = FileKind(mode: status.st_mode)
        guard kind == .characterDevice || kind == .fifo else {
            file = nil
            throw BackupError.unwritable(
                archive: shown, reason: "it was replaced while being opened; nothing was written", cause: nil)
        }
        if isatty(fd) == 1 {
            file = nil
            throw BackupError.unwritable(
                archive: shown, reason: "it is a terminal; refusing to write an archive to one", cause: nil)
        }
    }

    /// Closes the device or FIFO, reporting what `close(2)` reports (a device may fail its last write there).
    func finish() throws(BackupError) {
        guard let file = file.take() else { return }
        do {
            try file.close()
        } catch {
            throw BackupError.unwritable(archive: shown, reason: error.reason, cause: error)
        }
    }
}
