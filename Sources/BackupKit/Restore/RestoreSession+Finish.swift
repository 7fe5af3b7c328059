// RestoreSession+Finish: after the last member: judge the links, reinstall apps, check the links again with the
// kernel, fix directories, move in, fix the top-level directories.
import DeviceKit
import Glibc
import SystemKit
import TarKit

extension RestoreSession {
    /// Completes the staged tree and moves it into ROOT. Until the moves, nothing outside the staging
    /// directory has changed; if a move fails, the moves already made are undone.
    func finish(rootDescriptor root: SharedDescriptor) throws {
        // Every link judged against ROOT's final layout before anything follows a path through the staged tree.
        try tree.checkSymlinks()
        // Container class directories must be real directories (DeviceKit works with paths), and the fresh
        // device's skeleton must survive the exchange of top-level entries.
        for kind in ContainerKind.allCases { try tree.ensureDirectory(kind.directory) }
        let homeScreen = DeviceLayout.homeScreen
        try tree.ensureDirectory(String(homeScreen[..<(homeScreen.lastIndex(of: "/") ?? homeScreen.startIndex)]))
        try keepFlaggedTargetDirectories()
        if let plan = reader.restorePlan {
            try adoptContainers(plan)
            try reinstallApps(plan.header)
        } else if let header = outcome?.header {
            try reinstallApps(header)
        }
        // The kernel's check on the tree as it will be in ROOT: skeleton, reinstalled apps, DeviceLocal.
        try tree.checkSymlinkChains(deviceLocal: RestoreSession.deviceLocal)
        // Modes last: a directory restored as 0500 or 0000 must not stop the writes above or the move below.
        try tree.finishDirectories()
        if options.syncsBeforeMove {
            try SystemError.check("syncfs", path: staging.path) { Kernel.syncfs(staging.directory.rawValue) }
        }
        try checkInterruption()
        _ = try staging.moveIntoPlace(sync: options.syncsBeforeMove, interruption: options.interruption)
        // The top-level directories' modes and times, now in ROOT (a move to a new parent may touch the times).
        warnings.unappliedModes = tree.finishTopLevelDirectories(in: root, rootPath: staging.rootPath)
    }

    /// Reinstalls every app the manifest lists into the staged tree (bundle containers are never backed up;
    /// data and App Group containers from the archive are found by identifier and kept), then places any
    /// widget the manifest lists that the restored home screen lacks. Linear in the apps: one container
    /// listing for the run, the widgets placed at once among the apps just installed (never re-read per
    /// widget), and an interruption check between apps. The header was validated (`ManifestCheck`).
    private func reinstallApps(_ header: Manifest.Header) throws {
        // The staging root flushes nothing per plist: the staged tree is flushed at once (syncfs) before the move.
        let device = Device.assembling(in: try staging.containedRoot())
        var containers = ContainerIndex(device: device)
        var installed: [InstalledApp] = []
        installed.reserveCapacity(header.apps.count)
        for app in header.apps {
            try checkInterruption()
            installed.append(
                try settingUp(.reinstallApp(app.bundleId)) {
                    try device.install(app.installation, using: &containers, placesIcon: false)
                })
            report.apps.append(app.bundleId)
            // iOS never backs up Caches, tmp and SystemData but every container has them: recreate them (empty).
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
        try checkInterruption()
        try settingUp(.placeWidgets) { try device.placeWidgets(apps: header.widgets.map(\.app), installed: installed) }
    }

    /// Gives each container a MobileSync backup staged (named by identifier in the backup, by a new UUID here) the
    /// metadata containermanagerd writes, so the apps reinstalled next find their data, groups and extensions.
    private func adoptContainers(_ plan: RestorePlan) throws {
        let device = Device.assembling(in: try staging.containedRoot())
        for container in plan.containers {
            try checkInterruption()
            try settingUp(.adoptContainer(container.kind, identifier: container.identifier)) {
                try device.adoptContainer(
                    container.kind, identifier: container.identifier, uuid: container.uuid, parent: container.parent)
            }
        }
    }

    /// The target's flagged directories survive the exchange of top-level entries: each one whose top-level
    /// entry is staged is made in the staged tree (empty: its members were skipped) with the target's flag.
    private func keepFlaggedTargetDirectories() throws {
        guard !targetExclusions.flagged.isEmpty else { return }
        let staged = try staging.containedRoot()
        for flag in targetExclusions.flagged {
            let top = String(decoding: flag.path.split(separator: 0x2F, maxSplits: 1)[0], as: UTF8.self)
            guard try staged.status(top) != nil else { continue }  // not exchanged: the target's stays as it is
            let path: MemberPath
            do {
                path = try MemberPath(flag.path)
            } catch {
                throw RestoreError.setup(.readFlaggedPath(flag.text), cause: RestoreCause(error))
            }
            try settingUp(.keepFlaggedDirectory(flag.text)) { try tree.ensureDirectory(flag.text) }
            let fd = try tree.openDirectory(path)
            try StagingTree.setXattrs(try targetExclusions.attributes(of: flag), on: fd.rawValue, path: flag.text)
            try fd.close()
        }
    }

    /// Runs `body`, a set-up step on the staged tree: what it throws becomes `RestoreError.setup(step, ...)`, kept as
    /// thrown (its paths in the staging directory, which is gone once the restore fails, shown as the archive's).
    @discardableResult
    private func settingUp<T>(_ step: DeviceSetupStep, _ body: () throws -> T) throws(RestoreError) -> T {
        do {
            return try body()
        } catch {
            throw RestoreError.setup(step, cause: RestoreCause(error, staging: staging.path))
        }
    }
}
