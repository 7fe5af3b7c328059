// BackupScanner: counts what a backup will store, ahead of it, so that its progress can show a percentage.
import Synchronization
import SystemKit

/// Counts the tree's files while the backup runs, as restic's scanner does, but from directory listings alone
/// (`FileCounter`), on a thread of its own under SCHED_IDLE (it runs only on a core the backup leaves idle), kept off
/// the CPU the reading thread runs on when it starts: free to run there, it cost the backup 1.06-1.08x its time
/// without progress on the bench tree (most likely by holding that CPU, in a system call, into the reader's wake-up);
/// off it, 1.00x (a full second walk with statx and xattrs cost 20%). Before it is joined it may run anywhere again
/// (`mayRunAnywhere`), or a busy process on its one CPU would keep the owner waiting (2.9x; 1.01x after). A walk that
/// fails leaves no total (the backup reports its own errors); `stop()` ends it early. `BackupCounting.first` counts on
/// the calling thread before the backup starts instead (`counted`).
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
    init(root: String, rules: ExclusionRules, whenIdle: Bool = true) {
        let shared = self.shared
        thread = try? WorkerThread(whenIdle: whenIdle, offCallersCPU: true) {
            let total = Self.count(root: root, rules: rules, stopWhen: { shared.stopped.load(ordering: .relaxed) })
            shared.total.withLock { $0 = total }
        }
    }

    /// A scanner that has counted already, on the caller's thread (`BackupCounting.first`).
    init(counted total: BackupTotal?) {
        shared.total.withLock { $0 = total }
    }

    /// Counts `root` on the calling thread; nil when the walk fails or `stopWhen` ends it.
    static func count(root: String, rules: ExclusionRules, stopWhen: @escaping () -> Bool = { false }) -> BackupTotal? {
        (try? FileCounter(rules: rules, stopWhen: stopWhen).count(root)).map { BackupTotal(files: $0) }
    }

    /// The count, once the walk has finished.
    var total: BackupTotal? { shared.total.withLock { $0 } }

    /// Waits for the walk to finish (tests) and returns its count.
    func waitForTotal() -> BackupTotal? {
        thread?.mayRunAnywhere()
        thread.take()?.join()
        return total
    }

    /// Ends the walk (at its next directory) and waits for the thread.
    func stop() {
        shared.stopped.store(true, ordering: .relaxed)
        thread?.mayRunAnywhere()
        thread.take()?.join()
    }

    deinit { stop() }
}
