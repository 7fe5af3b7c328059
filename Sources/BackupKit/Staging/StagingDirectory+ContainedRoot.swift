// StagingDirectory+ContainedRoot: the staged tree as a contained root, for DeviceKit's reinstall.
import Glibc
import SystemKit

extension StagingDirectory {
    /// A `ContainedRoot` on the staging directory (its own duplicate descriptor): everything DeviceKit
    /// reads or writes while reinstalling apps stays beneath it, whatever the archive's files say. Its writes
    /// are not flushed one by one: the restore flushes the staged tree at once (syncfs) before moving it in,
    /// and thousands of flushes of files nobody can see yet made the reinstall five times slower.
    func containedRoot() throws -> ContainedRoot {
        let fd = try SystemError.check("dup", path: path) { fcntl(directory.rawValue, F_DUPFD_CLOEXEC, 0) }
        return ContainedRoot(adopting: FileDescriptor(rawValue: fd, path: path), path: path, syncsEachWrite: false)
    }
}
