// Stage: verify (`devicectl verify`: the restore stages without staging).
//
// Role: `ArchiveVerification` opens the source (../Source) and runs a `VerifyPass`: every member judged by
// restore's rules (../Check: `MemberRules`), every file hashed as restore hashes it, the manifest checked; the
// problems go into a `VerifyReport` instead of stopping the read. A MobileSync backup: `MobileSyncVerification`
// checks the rows, the plists and the content files, and reads the rows as restore reads them
// (`MobileSyncMemberReader`, `MemberRules`, the device plists, `StagedNames`).
// Threads: the caller's thread; a MobileSync backup's second reading on a thread of its own (a second connection to
// Manifest.db), joined before the report is made.
