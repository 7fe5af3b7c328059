// Stage: staging (restore, after the source).
//
// Role: builds the restored tree in `ROOT/.devicectl-restore-<pid>-<random>` (`StagingDirectory`), every name
// created by one component in a parent opened with openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) (`StagingTree`,
// `CName`): nothing is replaced or followed, so containment is the kernel's. `StagingOp`s carry file data and
// metadata to the writer; `FileCreation` says who creates files; `TreeRemoval` removes a tree through descriptors.
// Threads: the reading thread makes directories, links, the files of 8 KiB and more (created and written there) and,
// when the writer is behind, other files; `StagingPipeline`'s writer thread creates and writes the smaller files and
// finishes every file, in order.
