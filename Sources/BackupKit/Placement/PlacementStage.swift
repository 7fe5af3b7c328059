// Stage: placement (restore, last): moving the staged tree into ROOT, all or nothing.
//
// Role: `RestoreRoot` checks ROOT (and initialises it when absent or empty) and undoes that on failure;
// `RestoreSibling` builds a device beside an absent ROOT and renames it into place once; `StagingJournal` records
// the moves before the first one (renameat2 RENAME_NOREPLACE or RENAME_EXCHANGE) so that a killed restore is rolled
// back by the next one, and only when ROOT is still what the moves left (`StagingJournal+Check`).
// Threads: the caller's thread only, under the device lock.
