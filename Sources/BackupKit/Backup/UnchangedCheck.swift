// UnchangedCheck: a file's status after its data was read, against its status before: no torn data is archived.
import SystemKit

/// Fails the backup, naming the file, when a file's size, mtime, inode or ctime differ after its data was read
/// from what they were when it was opened. ctime (as GNU tar compares it) catches a file rewritten in place with its
/// mtime put back, which would otherwise be archived torn (the old start, the new end) under a digest that
/// verifies. Run by whichever thread read the file (`ArchivingVisitor`, or `BatchConsumer` for a handed-over one).
enum UnchangedCheck {
    static func afterRead(descriptor: Int32, before: FileStatus, path: @autoclosure () -> String) throws {
        // The path is built only for a message.
        guard let after = Kernel.status(ofDescriptor: descriptor) else {
            let path = path()
            throw BackupError.unreadable(path: path, SystemError("statx", path: path))
        }
        if after.size != before.size {
            throw BackupError.changed(path: path(), detail: "size \(before.size) -> \(after.size) bytes")
        }
        if after.mtimeSeconds != before.mtimeSeconds || after.mtimeNanoseconds != before.mtimeNanoseconds {
            throw BackupError.changed(path: path(), detail: "its modification time changed")
        }
        if after.inode != before.inode || after.device != before.device {
            throw BackupError.changed(path: path(), detail: "it was replaced by another file")
        }
        // Same statx as above (STATX_CTIME is in its mask): no extra system call per file.
        if after.ctimeSeconds != before.ctimeSeconds || after.ctimeNanoseconds != before.ctimeNanoseconds {
            throw BackupError.changed(
                path: path(),
                detail: "its status change time moved: it was written to or its attributes changed, "
                    + "even though its modification time is the same")
        }
    }
}
