// Stage: format source (restore, verify and list, first stage).
//
// Role: `FormatSource` reads a backup front to back, member by member, each member's data in blocks, within an
// expansion limit; `ArchiveSource.open` picks the source (today always TarKit's `ArchiveReader`, which conforms
// in `ArchiveReader+FormatSource`). A MobileSync reader is another `FormatSource`; staging, the member rules, the
// manifest check and the journal do not change.
// Threads: read on the caller's thread only.
