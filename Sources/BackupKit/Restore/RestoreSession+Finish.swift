// RestoreSession+Finish: after the last member: check link chains, reinstall apps, fix directories, move in.
import CSupport
import DeviceKit
import Glibc
import SystemKit

extension RestoreSession {
    /// Completes the staged tree and moves it into ROOT. Until the moves, nothing outside the staging
    /// directory has changed; if a move fails, the moves already made are undone.
    func finish(rootDescriptor root: FileDescriptor) throws {
        try tree.checkSymlinkChains()
        // Container class directories must be real directories (DeviceKit works with paths), and the fresh
        // device's skeleton must survive the exchange of top-level entries.
        for kind in ContainerKind.allCases { try tree.ensureDirectory(kind.directory) }
        let homeScreen = DeviceLayout.homeScreen
        try tree.ensureDirectory(String(homeScreen[..<(homeScreen.lastIndex(of: "/") ?? homeScreen.startIndex)]))
        if let header = outcome?.header { try reinstallApps(header) }
        let topLevelTimes = tree.topLevelDirectoryTimes
        try tree.finishDirectories()
        if options.syncsBeforeMove {
            try SystemError.check("syncfs", path: staging.path) { csupport_syncfs(staging.directory.rawValue) }
        }
        try checkInterruption()
        _ = try staging.moveIntoPlace(sync: options.syncsBeforeMove, interruption: options.interruption)
        // A directory moved to a new parent may have its times touched by some file systems: set them again.
        for (name, mtime) in topLevelTimes {
            var times = [timespec(tv_sec: 0, tv_nsec: CSUPPORT_UTIME_OMIT), mtime]
            _ = CName(name).withPointer { utimensat(root.rawValue, $0, &times, AT_SYMLINK_NOFOLLOW) }
        }
    }

    /// Reinstalls every app the manifest lists into the staged tree (bundle containers are never backed up;
    /// data and App Group containers from the archive are found by identifier and kept), then places any
    /// widget the manifest lists that the restored home screen lacks.
    private func reinstallApps(_ header: Manifest.Header) throws {
        let device = Device.assembling(at: staging.path)
        var containers = ContainerIndex(device: device)
        for app in header.apps {
            do {
                try device.install(
                    AppInstallation(bundleId: app.bundleId, name: app.name, groups: app.groups, widget: app.widget),
                    using: &containers)
            } catch {
                throw RestoreError.badManifest("cannot reinstall app '\(app.bundleId)': \(archiveNamed(error))")
            }
            report.apps.append(app.bundleId)
            // iOS never backs up Caches and tmp but every container has them: recreate them (empty).
            let appContainers = [
                try containers.container(.data, identifier: app.bundleId),
                try containers.container(.plugin, identifier: "\(app.bundleId).NudgeWidget"),
            ]
            for container in appContainers.compactMap({ $0 }) {
                for directory in DeviceLayout.neverBackedUpInDataContainers {
                    try tree.ensureDirectory("\(container.relativePath)/\(directory)")
                }
            }
        }
        do {
            let placed = try device.homeScreen().widgets
            for widget in header.widgets where !placed.contains(widget.app) {
                try device.placeWidget(app: widget.app)
            }
        } catch {
            throw RestoreError.aborted("cannot place the restored widgets: \(archiveNamed(error))")
        }
    }

    /// An error naming a file in the staging directory (gone once the restore fails), reworded to name the
    /// archive member it came from.
    private func archiveNamed(_ error: any Error) -> String {
        "\(error)".replacingOccurrences(of: staging.path + "/", with: "the archive's ")
    }
}
