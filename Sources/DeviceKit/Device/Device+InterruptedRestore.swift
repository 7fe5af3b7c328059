// Device+InterruptedRestore: a device that a killed restore left half moved in is refused by every command.
import Foundation
import Glibc

extension Device {
    /// The names of restore staging directories in ROOT (`.devicectl-restore-<pid>-<random>`).
    static let restoreStagingPrefix = ".devicectl-restore-"

    /// Throws `DeviceError.interruptedRestore` when a restore that is no longer running left its journal in a
    /// staging directory of `root`: it was killed while moving the restored tree into ROOT, so ROOT may hold
    /// part of the restored tree and part of the fresh device's (or all of the restored tree, unconfirmed).
    /// Only the next `devicectl restore`, which rolls the moves back, may touch such a device.
    ///
    /// A running restore holds an exclusive `flock` on its staging directory for its whole life and the kernel
    /// drops it when the process dies, so a journal whose directory can be locked is stale (no pid guessing).
    /// Does nothing when `root` cannot be listed (the caller reports a missing or unreadable ROOT).
    public static func refuseInterruptedRestore(at root: String) throws {
        let root = absolute(root)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: root) else { return }
        for name in names where name.hasPrefix(restoreStagingPrefix) && name != DeviceLayout.restoreJournal {
            let staging = Glibc.open("\(root)/\(name)", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard staging >= 0 else { continue }
            defer { close(staging) }
            var journal = stat()
            guard fstatat(staging, DeviceLayout.restoreJournal, &journal, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
            // Shared and non-blocking: it fails only while the restore that wrote the journal still runs.
            if flock(staging, LOCK_SH | LOCK_NB) == 0 {
                throw DeviceError.interruptedRestore(root: root)
            }
        }
    }
}
