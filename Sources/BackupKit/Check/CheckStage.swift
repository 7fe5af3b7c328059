// Stage: check (restore and verify: the rules a backup must pass).
//
// Role: `MemberRules` judges each member's header as restore does before creating anything (verify reports the
// same reasons); `ManifestCheck` compares the streamed manifest with the members read before it (file lines and
// digests in order, totals, the members digest); `SymlinkResolver` follows every restored link as the kernel will
// in the final ROOT. Restore fails on the first problem; verify collects them.
// Threads: the reading thread only.
