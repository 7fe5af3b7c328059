// RestoreSession+Finish: after the last member (or beside the manifest check): judge the links, reinstall apps,
// check the links again with the kernel, fix directories; then move in, fix the top-level directories.
import DeviceKit
import Glibc
import SystemKit
import TarKit

extension RestoreSession {
    /// Completes the staged tree (unless `prepareTree` ran beside the manifest check: `treePrepared`) and moves it
    /// into ROOT. Until the moves, nothing outside the staging directory has changed; if a move fails, the moves
    /// already made are undone.
    func finish(rootDescriptor root: SharedDescriptor) throws {
        if !treePrepared {
            report.apps = try prepareTree(plan: reader.restorePlan, header: outcome?.header)
        }
        if options.syncsBeforeMove {
            try SystemError.check("syncfs", path: staging.path) { Kernel.syncfs(staging.directory.rawValue) }
        }
        try checkInterruption()
        _ = try staging.moveIntoPlace(sync: options.syncsBeforeMove, interruption: options.interruption)
        // The top-level directories' modes and times, now in ROOT (a move to a new parent may touch the times).
        warnings.unappliedModes = tree.finishTopLevelDirectories(in: root, rootPath: staging.rootPath)
    }

    /// The directories `prepareTree` makes in every staged tree (verify reports a file or a symlink in their way:
    /// `StagedNames.skeletonProblem`): the container classes' and SpringBoard's.
    static let skeleton: [String] = {
        let homeScreen = DeviceLayout.homeScreen
        return ContainerKind.allCases.map(\.directory)
            + [String(homeScreen[..<(homeScreen.lastIndex(of: "/") ?? homeScreen.startIndex)])]
    }()

    /// Everything the staged tree needs after its last member and before the move: the links judged, the
    /// skeleton, the apps reinstalled (`plan`'s containers adopted first, for a MobileSync backup; else
    /// `header`'s apps, a manifest's), the links' chains checked by the kernel, the directories' modes. Returns
    /// the apps reinstalled, in order. Touches the staged tree, the staging directory and the target's flags
    /// alone (never the reader, the pipeline or the report), so it may run on a thread of its own beside the
    /// manifest check once the manifest's header was read (`TreeSetUpThread`).
    func prepareTree(plan: RestorePlan?, header: Manifest.Header?) throws -> [String] {
        // Every link judged against ROOT's final layout before anything follows a path through the staged tree.
        try tree.checkSymlinks()
        // Container class directories must be real directories (DeviceKit works with paths), and the fresh
        // device's skeleton must survive the exchange of top-level entries.
        for directory in RestoreSession.skeleton { try tree.ensureDirectory(directory) }
        try keepFlaggedTargetDirectories()
        var apps: [String] = []
        if let plan {
            try adoptContainers(plan)
            apps = try reinstallApps(plan.header)
        } else if let header {
            apps = try reinstallApps(header)
        }
        // The kernel's check on the tree as it will be in ROOT: skeleton, reinstalled apps, DeviceLocal.
        try tree.checkSymlinkChains(deviceLocal: RestoreSession.deviceLocal)
        // Modes last: a directory restored as 0500 or 0000 must not stop the writes above or the move below.
        try tree.finishDirectories()
        return apps
    }

    /// Reinstalls every app the manifest lists into the staged tree (bundle containers are never backed up;
    /// data and App Group containers from the archive are found by identifier and kept), then places any
    /// widget the manifest lists that the restored home screen lacks. Linear in the apps: one container
    /// listing for the run, the widgets placed at once among the apps just installed (never re-read per
    /// widget), and an interruption check between apps. The header was validated (`ManifestCheck`). Returns the
    /// apps' bundle identifiers in order.
    private func reinstallApps(_ header: Manifest.Header) throws -> [String] {
        // The staging root flushes nothing per plist: the staged tree is flushed at once (syncfs) before the move.
        let device = Device.assembling(in: try staging.containedRoot())
        var containers = ContainerIndex(device: device)
        var installed: [InstalledApp] = []
        installed.reserveCapacity(header.apps.count)
        var apps: [String] = []
        for app in header.apps {
            try checkInterruption()
            installed.append(
                try settingUp(.reinstallApp(app.bundleId)) {
                    try device.install(app.installation, using: &containers, placesIcon: false)
                })
            apps.append(app.bundleId)
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
        return apps
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
