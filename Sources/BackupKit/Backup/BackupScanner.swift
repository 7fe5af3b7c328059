// BackupScanner: counts what a backup will store, ahead of it, so that its progress can show a percentage.
import Synchronization
import SystemKit

/// Walks the tree a second time while the backup runs, as restic's scanner does: on a thread of its own under
/// SCHED_IDLE (it runs only on a core the backup leaves idle), with the backup's exclusion rules and the dry run's
/// counting visitor (`DryRunVisitor`), so the total is what the backup will store unless the tree changes
/// meanwhile. A walk that fails leaves no total (the backup reports its own errors); `stop()` ends it early.
/// `BackupCounting.first` counts on the calling thread before the backup starts instead (`counted`).
final class BackupScanner {
    /// What the thread shares with its owner.
    private final class Shared: Sendable {
        let total = Mutex<BackupTotal?>(nil)
        let stopped = Atomic<Bool>(false)
    }

    private let shared = Shared()
    private var thread: WorkerThread?

    /// Starts counting `root` as a backup with `rules` would walk it, on a thread under SCHED_IDLE unless
    /// `whenIdle` is false (tests pin that: an idle-only thread may wait as long as other work keeps the cores).
    /// No thread (no total) if none can start.
    init(root: String, rules: ExclusionRules, ignoring: [IgnoredFile], oneFileSystem: Bool, whenIdle: Bool = true) {
        let shared = self.shared
        thread = try? WorkerThread(whenIdle: whenIdle) {
            let total = Self.count(
                root: root, rules: rules, ignoring: ignoring, oneFileSystem: oneFileSystem,
                stopWhen: { shared.stopped.load(ordering: .relaxed) })
            shared.total.withLock { $0 = total }
        }
    }

    /// A scanner that has counted already, on the caller's thread (`BackupCounting.first`).
    init(counted total: BackupTotal?) {
        shared.total.withLock { $0 = total }
    }

    /// Counts `root` on the calling thread; nil when the walk fails or `stopWhen` ends it.
    static func count(
        root: String, rules: ExclusionRules, ignoring: [IgnoredFile], oneFileSystem: Bool,
        stopWhen: (() -> Bool)? = nil
    ) -> BackupTotal? {
        let visitor = DryRunVisitor(report: { _ in }, warn: { _ in }, stopWhen: stopWhen)
        let walker = TreeWalker(
            root: root, rules: rules, visitor: visitor, ignoring: ignoring, oneFileSystem: oneFileSystem)
        guard (try? walker.run()) != nil else { return nil }
        return BackupTotal(files: visitor.tally.files, bytes: visitor.tally.bytes)
    }

    /// The count, once the walk has finished.
    var total: BackupTotal? { shared.total.withLock { $0 } }

    /// Waits for the walk to finish (tests) and returns its count.
    func waitForTotal() -> BackupTotal? {
        thread.take()?.join()
        return total
    }

    /// Ends the walk (at its next entry) and waits for the thread.
    func stop() {
        shared.stopped.store(true, ordering: .relaxed)
        thread.take()?.join()
    }

    deinit { stop() }
}
