// Stage: restore (the session that drives the restore stages).
//
// Role: `ArchiveRestore` opens the source (../Source) and ROOT (../Placement), then `RestoreSession` reads every
// member: name and header rules (../Check), staging (../Staging) with each file hashed on the way, the manifest
// check; then `RestoreSession+Finish` judges the links, reinstalls the apps, fixes directories and moves the tree
// into place (../Placement). `RestoreError` says why a restore failed; ROOT is then as it was.
// Threads: the caller's thread reads, checks, hashes and writes the larger files; `StagingPipeline` writes the
// smaller files' data and finishes every file on a second thread.
