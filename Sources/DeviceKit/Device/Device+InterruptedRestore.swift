// Device+InterruptedRestore: a device that a killed restore left half moved in is refused by every command.
import Glibc
import SystemKit

extension Device {
    /// The names of restore staging directories in ROOT (`.devicectl-restore-<pid>-<random>`).
    static let restoreStagingPrefix = ".devicectl-restore-"

    /// Throws `DeviceError.interruptedRestore` when a restore that is no longer running left its journal in a
    /// staging directory of ROOT: it was killed while moving the restored tree into ROOT, so ROOT may hold
    /// part of the restored tree and part of the fresh device's (or all of the restored tree, unconfirmed).
    /// Only the next `devicectl restore`, which rolls the moves back, may touch such a device.
    ///
    /// A running restore holds an exclusive `flock` on its staging directory for its whole life and the kernel
    /// drops it when the process dies, so a journal whose directory can be locked is stale (no pid guessing).
    /// Does nothing when ROOT cannot be listed (the caller reports an unreadable ROOT).
    public func refuseInterruptedRestore() throws {
        guard let names = try? directory.names("") else { return }
        for bytes in names where bytes.starts(with: Array(Device.restoreStagingPrefix.utf8)) {
            let name = String(decoding: bytes, as: UTF8.self)
            guard name != DeviceLayout.restoreJournal, Array(name.utf8) == bytes,
                (try? directory.status("\(name)/\(DeviceLayout.restoreJournal)")) != nil,
                let staging = try? directory.openDirectory(name)
            else { continue }
            // Fails only while the restore that wrote the journal still runs; released at once, so that this
            // probe never looks like a live restore to the one that rolls the journal back.
            if !FileLock.isHeld(staging) {
                throw DeviceError.interruptedRestore(root: root)
            }
        }
    }
}
