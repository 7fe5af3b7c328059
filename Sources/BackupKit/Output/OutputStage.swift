// Stage: output (backup, last): where the archive goes.
//
// Role: `BackupOutput` (`-o PATH` or standard output) is resolved by `ArchiveTarget` before anything is read: a
// regular file or a new name is replaced atomically (`AtomicArchiveFile`: a locked temporary beside it, fsync,
// rename, fsync the directory; removed on failure or signal), a character device or FIFO is written in place
// (`StreamArchiveFile`). `BackupDestination` is the open descriptor the format sink writes to.
// Threads: opened and committed on the caller's thread; written by the sink's thread.
