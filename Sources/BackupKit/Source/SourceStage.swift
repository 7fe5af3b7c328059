// Stage: format source (restore, verify and list, first stage).
//
// Role: `FormatSource` reads a backup front to back, member by member, each member's data in blocks, within an
// expansion limit; `ArchiveSource.open` picks the source: TarKit's `ArchiveReader` (conforming in
// `ArchiveReader+FormatSource`) or `MobileSyncMemberReader` (a MobileSync backup's rows, placed by `DomainRoot`,
// with a `RestorePlan` for after the last member); staging, the member rules and the journal are the same for both.
// Threads: read on the caller's thread, except a MobileSync backup's rows, read and checked ahead on a worker
// (`MobileSyncRowPrefetch`).
