// DescriptorTableEndToEndTests: devicectl grows its descriptor table at start-up, while it has one thread. Grown
// later, when a MobileSync backup opened more descriptors than the table held (64 slots, or the 256 a shell's child
// inherits), each growth waited for an RCU grace period with every thread that opened a file behind it: a backup of
// 2,000 files took 0.095 s instead of 0.052 s.
import Foundation
import Glibc
import SystemKit
import TestSupport
import Testing

@Suite struct DescriptorTableEndToEndTests {
    @Test func aBackupHasItsDescriptorTableGrownBeforeItTakesTheDeviceLock() throws {
        try withTemporaryDirectory { dir in
            let root = dir + "/phone"
            let made = try BackupCheck.devicectl(["init", root])
            try #require(made.status == 0, "\(made.stderr)")
            var limit = rlimit()
            try #require(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0)
            let expected = Int(min(UInt64(Kernel.startupDescriptorSlots), UInt64(limit.rlim_cur)))
            // The device lock held here: the backup waits for it, having done what it does before taking it (in
            // `flock`, where /proc/locks shows it: without a timeout, whatever the environment says).
            let lock = try FileLock(path: root + "/DeviceLocal/lock", wait: false)
            let child = try ChildProcess.devicectl(
                ["backup", root, "-o", dir + "/b.tar", "--no-progress"], environment: ["DEVICECTL_LOCK_TIMEOUT": ""])
            let waiting = child.wait(upTo: 60) { ProcFiles.waitsForALock(child.pid) }
            try #require(waiting, "the backup never waited for the lock: \(child.stderr)")
            let slots = ProcFiles.statusField("FDSize", of: "\(child.pid)") ?? 0
            #expect(slots >= expected, "FDSize \(slots), expected at least \(expected)")
            try lock.release()
            #expect(child.finish(within: 60))
            #expect(child.status == 0, "\(child.stderr)")
        }
    }
}
