// TreeSetUpThread: the staged tree's set-up (`RestoreSession.prepareTree`) on a thread of its own, beside the
// manifest check.
import SystemKit

/// Runs `prepareTree` for a manifest's header while the reading thread checks the rest of the manifest: the two
/// were the end of a restore, one after the other, each on one thread (the bench archive: the check 8 ms, the
/// reinstall and the directories' modes 8 ms). Started once the header was read and validated (`ManifestCheck`),
/// after the writer applied every member (`StagingPipeline.flush`); from then until `join()` only this thread
/// touches the staged tree, and the reading thread only the reader, the check and the pipeline. `join()` is called
/// on every path before the staged tree is moved or removed (`RestoreSession.extractAll`); `deinit` joins a thread
/// never joined.
final class TreeSetUpThread {
    private var worker: WorkerThread?
    private let box: Box

    /// Starts the set-up of `session`'s staged tree for `header`'s apps.
    /// - Throws: `SystemError` for `pthread_create` (then nothing ran).
    init(session: RestoreSession, header: Manifest.Header) throws {
        let box = Box(session: session, header: header)
        self.box = box
        worker = try WorkerThread {
            let outcome = Result { try box.session.prepareTree(plan: nil, header: box.header) }
            box.outcome = outcome
        }
    }

    deinit {
        worker.take()?.join()
    }

    /// Waits for the set-up: the apps it reinstalled, in order, or what it threw.
    func join() -> Result<[String], any Error> {
        worker.take()?.join()
        return box.outcome ?? .success([])
    }

    /// What the thread works on and leaves: the session, alone the thread's (as above) until it is joined, and
    /// the outcome, written by the thread before it ends and read after the join.
    private final class Box: @unchecked Sendable {
        let session: RestoreSession
        let header: Manifest.Header
        var outcome: Result<[String], any Error>?

        init(session: RestoreSession, header: Manifest.Header) {
            self.session = session
            self.header = header
        }
    }
}
