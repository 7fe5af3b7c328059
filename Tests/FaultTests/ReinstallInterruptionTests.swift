// ReinstallInterruptionTests: SIGINT while a restore reinstalls the largest header allowed (1,000 apps) stops it
// at the next app, not after the last one, and leaves ROOT as it was. The signal is injected by strace at the
// 200th renameat(2): only the reinstall's plist writes call it (staging uses renameat2), so it lands mid-reinstall
// on every run, and the renames counted after it show how far the reinstall went on.
import DeviceKit
import Foundation
import TestSupport
import Testing

@Suite struct ReinstallInterruptionTests {
    /// A backup of a device with `count` apps, each with its own App Group and its widget placed (made in-process).
    static func backup(_ scratch: PhoneScratch, apps count: Int) throws -> String {
        let root = scratch.root
        let device = try Device.initialize(root)
        var index = ContainerIndex(device: device)
        var installed: [InstalledApp] = []
        for number in 0..<count {
            let app = AppInstallation(
                bundleId: "com.example.app\(number)", groups: ["group.com.example.app\(number)"])
            installed.append(try device.install(app, using: &index))
        }
        try device.placeWidgets(apps: installed.map(\.bundleId), installed: installed)
        let archive = scratch.dir + "/phone.tar"
        try scratch.ok(["backup", root, "-o", archive])
        return archive
    }

    @Test func sigintDuringTheReinstallStopsAtTheNextApp() throws {
        try PhoneScratch.withFaults { scratch in
            let archive = try Self.backup(scratch, apps: 1000)
            let root = try scratch.freshDevice("target")
            let before = try TreeSnapshot.take(root)
            let log = scratch.dir + "/strace.log"
            let clock = ContinuousClock()
            let started = clock.now
            let result = try Shell.run(
                "strace",
                [
                    "-f", "-qq", "-o", log, "-e", "trace=renameat", "-e", "inject=renameat:signal=INT:when=200",
                    DevicectlBinary.path, "restore", archive, root,
                ], environment: ["DEVICECTL_NOW": PhoneScratch.now])
            print("ReinstallInterruptionTests: interrupted restore (under strace) took \(clock.now - started)")
            PhoneScratch.expectCleanFailure(result, status: 128 + SIGINT, mentioning: ["interrupted by SIGINT"])
            let renames = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
                .filter { $0.contains("renameat(") }.count
            // The app in progress finishes (five plists at most), then the check before the next app stops it.
            #expect((200...206).contains(renames), "\(renames) renames: the reinstall went on after SIGINT")
            let after = try TreeSnapshot.take(root)
            #expect(after == before, "\(snapshotDifference(before, after))")
            // The same restore, uninterrupted, completes (no flush per plist: the staging is synced at once).
            let again = clock.now
            let restored = try scratch.ok(["restore", archive, root, "--json"])
            let elapsed = clock.now - again
            print("ReinstallInterruptionTests: \(renames) renames in all (SIGINT at the 200th); full restore \(elapsed)")
            // Linear: quadratic, 800 apps took 262 s (issue 13). The < 5 s target is measured without extracting
            // this backup's 14,000 entries, in HostileHeaderTests; here, on the loaded test machine, 3.2 to 5.2 s.
            #expect(elapsed < .seconds(30))
            #expect(restored.stdout.contains("com.example.app999"))
        }
    }
}
