// Stage: walk (backup, first stage).
//
// Role: visits ROOT in archive order (depth first, a directory before its contents, names sorted bytewise) with
// openat/getdents64/statx, asks the exclusion rules (../Exclusion) about every entry, never enters an excluded
// directory, and hands each kept entry to a `TreeVisitor`: `ArchivingVisitor` for a backup, `DryRunVisitor` for
// `--dry-run`. `HardLinkTable` turns later names of a multiply linked file into hard links. `FileCounter` walks
// the same tree from directory listings alone (path rules only) to count files ahead of a backup, for progress.
// Threads: runs on the reading thread only (the caller's); `FileCounter` on `BackupScanner`'s idle-only thread,
// off the reading thread's CPU.
