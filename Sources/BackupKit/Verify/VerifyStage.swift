// Stage: verify (`devicectl verify`: the restore stages without staging).
//
// Role: `ArchiveVerification` opens the source (../Source) and runs a `VerifyPass`: every member judged by
// restore's rules (../Check: `MemberRules`), every file hashed as restore hashes it, the manifest checked; the
// problems go into a `VerifyReport` instead of stopping the read.
// Threads: the caller's thread only.
