// FileCreation: which restore thread creates the regular files in the staging tree, chosen once for a run.

/// Who makes every regular file of a restore (`openat2` with `O_CREAT | O_EXCL`): the same containment either way.
/// Chosen before the first member (`RestoreOptions.pinsThreads`) and never re-decided while the restore goes on.
enum FileCreation: Sendable {
    /// The writing thread, which then creates, writes and closes each file while the reader reads, checks and
    /// hashes (the default). Alternating restores of the bench tree measured it level with handing creation to
    /// whichever thread had room, as an earlier version did (0.742 against 0.728 s, two busy cores).
    case writer
    /// The reading thread (`DEVICECTL_THREADS=pinned`): every system call that names a path is then made on one
    /// thread, in the archive's order, on every run, so fault injection by call count always hits the same step.
    case reader
}
